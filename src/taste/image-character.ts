import { chroma, Oklab } from './colour-vocabulary';
import { ANALYSIS } from './image-thresholds';
import type { PaletteColour } from './taste.types';

/** The palette's character, for captions, the profile and style rules. */
export interface PaletteCharacter {
  warmth: 'warm' | 'cool' | 'neutral';
  lightness: 'light' | 'mid-tone' | 'dark';
  saturation: 'muted' | 'moderate' | 'vivid';
  contrast: 'tonal' | 'balanced' | 'high-contrast';
  variety: 'monochrome' | 'few colours' | 'multicolour';
  /** Weighted means over the subject, for the profile writer's own rules. */
  meanL: number;
  meanChroma: number;
}

const T = ANALYSIS.character;

/** Hue angle in degrees, 0 to 360 (OKLab: red ≈ 20, orange ≈ 60, yellow ≈ 100, green ≈ 140, blue ≈ 260). */
export function hue(o: Oklab): number {
  return ((Math.atan2(o.b, o.a) * 180) / Math.PI + 360) % 360;
}

/** Chromatic colours are warm from magenta-red through yellow (hue ≥ 340 or ≤ 115), cool otherwise. */
export function isWarmHue(h: number): boolean {
  return h >= 340 || h <= 115;
}

/**
 * Palette character, from the named palette:
 * - warmth: the share-weighted vote of chromatic colours (chroma ≥ 0.04); neutral when they hold
 *   under a quarter of the subject;
 * - lightness: mean L over 0.72 light, under 0.45 dark;
 * - saturation: mean chroma over 0.11 vivid, under 0.05 muted;
 * - contrast: lightness spread between colours holding ≥ 10%: over 0.4 high-contrast, under 0.15 tonal;
 * - variety: hue families among chromatic colours holding ≥ 10%: none or one is monochrome, three or
 *   more multicolour.
 */
export function paletteCharacter(palette: PaletteColour[]): PaletteCharacter {
  const total = palette.reduce((s, c) => s + c.share, 0) || 1;
  let warm = 0;
  let cool = 0;
  let meanL = 0;
  let meanChroma = 0;
  for (const c of palette) {
    const w = c.share / total;
    meanL += c.oklab.l * w;
    meanChroma += chroma(c.oklab) * w;
    if (chroma(c.oklab) >= T.chromaticFrom) {
      if (isWarmHue(hue(c.oklab))) warm += w;
      else cool += w;
    }
  }
  const main = palette.filter((c) => c.share / total >= T.mainShare);
  const ls = main.map((c) => c.oklab.l);
  const spread = ls.length > 0 ? Math.max(...ls) - Math.min(...ls) : 0;
  const families = new Set(
    main
      .filter((c) => chroma(c.oklab) >= T.chromaticFrom)
      .map((c) => Math.floor(((hue(c.oklab) + 15) % 360) / 45)),
  );
  return {
    warmth: warm + cool < T.neutralBelow ? 'neutral' : warm >= cool ? 'warm' : 'cool',
    lightness: meanL > T.lightAbove ? 'light' : meanL < T.darkBelow ? 'dark' : 'mid-tone',
    saturation: meanChroma > T.vividAbove ? 'vivid' : meanChroma < T.mutedBelow ? 'muted' : 'moderate',
    contrast: spread > T.highContrastAbove ? 'high-contrast' : spread < T.tonalBelow ? 'tonal' : 'balanced',
    variety:
      families.size <= 1 && main.length <= 2
        ? 'monochrome'
        : families.size >= 3
          ? 'multicolour'
          : 'few colours',
    meanL: Math.round(meanL * 1000) / 1000,
    meanChroma: Math.round(meanChroma * 1000) / 1000,
  };
}
