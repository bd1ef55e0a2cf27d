import { createHash } from 'node:crypto';
import sharp from 'sharp';
import type { DemoPattern, Silhouette } from './demo-catalogue';

/**
 * A coat or jacket seen from the front: one closed body from the shoulders to the hem (no legs), with
 * a sleeve hanging on each side.
 */
function tailored(hem: number, cuff: number): string {
  const body = `M165 62 L235 62 L300 86 L312 ${hem} L88 ${hem} L100 86 Z`;
  const right = `M300 86 L346 112 L360 ${cuff} L326 ${cuff + 6} L306 150 Z`;
  const left = `M100 86 L54 112 L40 ${cuff} L74 ${cuff + 6} L94 150 Z`;
  return `${body} ${right} ${left}`;
}

/** Lapels, the front opening, buttons and pockets drawn over a tailored outline. */
function tailoredDetails(hem: number, buttons: number): string {
  const line = 'fill="none" stroke="rgba(0,0,0,0.35)" stroke-width="3" stroke-linejoin="round"';
  const step = (hem - 250) / (buttons + 1);
  const dots = Array.from(
    { length: buttons },
    (_, i) => `<circle cx="214" cy="${Math.round(225 + step * i)}" r="6" fill="rgba(0,0,0,0.45)"/>`,
  );
  const pocketY = Math.round(hem - (hem - 200) * 0.35);
  return (
    `<path d="M165 62 L142 118 L200 200 L258 118 L235 62" ${line}/>` +
    `<path d="M200 200 L200 ${hem}" ${line}/>` +
    `<path d="M122 ${pocketY} L168 ${pocketY} M232 ${pocketY} L278 ${pocketY}" ${line}/>` +
    dots.join('')
  );
}

/** Details drawn over an outline (garments whose outline alone does not say what they are). */
const DETAILS: Partial<Record<Silhouette, string>> = {
  coat: tailoredDetails(455, 4),
  jacket: tailoredDetails(330, 2),
};

/** Garment outlines in a 400 x 500 view box. */
const SILHOUETTES: Record<Silhouette, string> = {
  dress: 'M160 60 L240 60 L250 120 L230 170 L300 440 L100 440 L170 170 L150 120 Z',
  sweater: 'M140 80 L260 80 L340 140 L320 230 L280 200 L280 400 L120 400 L120 200 L80 230 L60 140 Z',
  jacket: tailored(330, 300),
  trousers: 'M130 60 L270 60 L290 440 L220 440 L200 160 L180 440 L110 440 Z',
  coat: tailored(455, 335),
  shoe: 'M70 300 L120 230 L200 240 L260 300 L340 320 L350 370 L70 370 Z',
  bag: 'M110 200 L290 200 L320 420 L80 420 Z M150 200 C150 110 250 110 250 200 L235 200 C235 130 165 130 165 200 Z',
  scarf: 'M170 60 L230 60 L240 440 L200 420 L160 440 Z',
  tshirt: 'M150 90 L250 90 L340 150 L310 210 L280 190 L280 400 L120 400 L120 190 L90 210 L60 150 Z',
  skirt: 'M150 120 L250 120 L310 420 L90 420 Z',
};

function hexToRgb(hex: string): [number, number, number] {
  const h = hex.replace('#', '');
  return [0, 2, 4].map((i) => parseInt(h.slice(i, i + 2), 16)) as [number, number, number];
}

/** A contrasting accent for patterns: lighter on dark colours, darker on light ones. */
function accent(hex: string): string {
  const [r, g, b] = hexToRgb(hex);
  const light = 0.2126 * r + 0.7152 * g + 0.0722 * b > 140;
  const mix = (c: number): number => Math.round(light ? c * 0.55 : c + (255 - c) * 0.6);
  return `rgb(${mix(r)},${mix(g)},${mix(b)})`;
}

function patternDef(pattern: DemoPattern, base: string): string {
  const a = accent(base);
  switch (pattern) {
    case 'striped':
      return `<pattern id="p" width="24" height="24" patternUnits="userSpaceOnUse"><rect width="24" height="24" fill="${base}"/><rect width="24" height="8" fill="${a}"/></pattern>`;
    case 'checked':
      return `<pattern id="p" width="40" height="40" patternUnits="userSpaceOnUse"><rect width="40" height="40" fill="${base}"/><rect width="40" height="10" fill="${a}" opacity="0.7"/><rect width="10" height="40" fill="${a}" opacity="0.7"/></pattern>`;
    case 'floral print':
      return `<pattern id="p" width="50" height="50" patternUnits="userSpaceOnUse"><rect width="50" height="50" fill="${base}"/><g fill="${a}"><circle cx="25" cy="17" r="6"/><circle cx="17" cy="25" r="6"/><circle cx="33" cy="25" r="6"/><circle cx="25" cy="33" r="6"/></g></pattern>`;
    case 'polka dot print':
      return `<pattern id="p" width="30" height="30" patternUnits="userSpaceOnUse"><rect width="30" height="30" fill="${base}"/><circle cx="15" cy="15" r="5" fill="${a}"/></pattern>`;
    default:
      return '';
  }
}

/** A simple product shot: the garment outline in its colour and pattern on a light background, as PNG. */
export function renderProductImage(
  silhouette: Silhouette,
  hex: string,
  pattern: DemoPattern,
): Promise<Buffer> {
  const fill = pattern === 'solid' ? hex : 'url(#p)';
  const svg =
    `<svg xmlns="http://www.w3.org/2000/svg" width="400" height="500" viewBox="0 0 400 500">` +
    `<defs>${patternDef(pattern, hex)}</defs>` +
    `<rect width="400" height="500" fill="#f4f2ee"/>` +
    `<ellipse cx="200" cy="470" rx="140" ry="12" fill="#e2ded7"/>` +
    `<path d="${SILHOUETTES[silhouette]}" fill="${fill}" fill-rule="evenodd" stroke="rgba(0,0,0,0.25)" stroke-width="2"/>` +
    (DETAILS[silhouette] ?? '') +
    `</svg>`;
  return sharp(Buffer.from(svg)).png({ compressionLevel: 6 }).toBuffer();
}

/**
 * Bumped when a silhouette's drawing changes, so the next `catalogue:demo` stores the new drawing
 * under a new key (and updates the products' image URLs) instead of keeping the old file.
 */
const DRAWING_VERSION: Partial<Record<Silhouette, string>> = { coat: 'tailored-2', jacket: 'tailored-2' };

export function drawingVersion(silhouette: Silhouette): string {
  return DRAWING_VERSION[silhouette] ?? '';
}

/**
 * A stable storage key per look (`demo/<32 hex>.png`), so a second `catalogue:demo` finds the image it
 * stored before instead of storing a copy. Demo images are public product shots, not user uploads.
 */
export function demoImageKey(look: string, variant = ''): string {
  const hash = createHash('sha256').update(`taste-demo-look:${look}:${variant}`).digest('hex').slice(0, 32);
  return `demo/${hash}.png`;
}
