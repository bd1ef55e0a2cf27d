import { decodeImageDataUrl } from './data-url';
import { seededRandom } from '../common/seeded-random';
import { ImageRejectedError, MAX_IMAGE_BYTES } from './image-limits';

const PNG_1PX =
  'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8DwHwAFBQIAX8jx0gAAAABJRU5ErkJggg==';

function reason(fn: () => unknown): string {
  try {
    fn();
  } catch (err) {
    expect(err).toBeInstanceOf(ImageRejectedError);
    return (err as Error).message;
  }
  throw new Error('expected a rejection');
}

describe('decodeImageDataUrl', () => {
  it('decodes a well-formed data URL', () => {
    const buf = decodeImageDataUrl(`data:image/png;base64,${PNG_1PX}`);
    expect(buf.subarray(1, 4).toString('latin1')).toBe('PNG');
    expect(buf.length).toBe(Buffer.from(PNG_1PX, 'base64').length);
  });

  it('accepts subtypes with dots, plus and dashes', () => {
    expect(decodeImageDataUrl('data:image/svg+xml;base64,AAAA')).toHaveLength(3);
    expect(decodeImageDataUrl('data:image/vnd.ms-photo;base64,AAA=')).toHaveLength(2);
  });

  it.each([
    ['no data: scheme', `image/png;base64,${PNG_1PX}`],
    ['a non-image type', `data:text/html;base64,${PNG_1PX}`],
    ['no ;base64 marker', `data:image/png,${PNG_1PX}`],
    ['a parameter before base64', `data:image/png;charset=utf-8;base64,${PNG_1PX}`],
    ['an empty subtype', `data:image/;base64,${PNG_1PX}`],
    ['a URL', 'https://example.com/a.png'],
  ])('rejects %s', (_label, value) => {
    expect(reason(() => decodeImageDataUrl(value))).toMatch(/not a data URL/);
  });

  it.each([
    ['characters outside the alphabet', 'AAA*'],
    ['URL-safe alphabet', 'AA-_'],
    ['whitespace', 'AAAA AAAA'],
    ['a newline', 'AAAA\nAAA='],
    ['a length that is not a multiple of 4', 'AAAAA'],
    ['padding in the middle', 'AA==AAAA'],
    ['three padding characters', 'A==='],
  ])('rejects base64 with %s', (_label, payload) => {
    expect(reason(() => decodeImageDataUrl(`data:image/png;base64,${payload}`))).toMatch(/base64/);
  });

  it('accepts valid base64 whose last character carries non-zero unused bits (not canonical)', () => {
    // 'AB==' decodes to one zero byte, which encodes back as 'AA==': the slow path judges it.
    expect(decodeImageDataUrl('data:image/png;base64,AB==')).toEqual(Buffer.from([0]));
  });

  it('judges random payloads exactly as the reference pattern does', () => {
    // The reference: the standard alphabet, with at most two `=` at the very end.
    const valid = (b64: string) => !/[^A-Za-z0-9+/]/.test(b64.replace(/={1,2}$/, ''));
    const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/';
    const intruders = ['=', '-', '_', ' ', '\n', '\t', '*', '.', '\u00e9', '\u20ac', '\u0000', '%'];
    const random = seededRandom(12);
    let accepted = 0;
    for (let i = 0; i < 3000; i += 1) {
      const chars = Array.from(
        { length: 4 * (1 + Math.floor(random() * 6)) },
        () => alphabet[Math.floor(random() * alphabet.length)],
      );
      if (random() < 0.5) chars[chars.length - 1] = '=';
      if (random() < 0.3) chars[chars.length - 2] = '=';
      const intrusions = random() < 0.5 ? 0 : 1 + Math.floor(random() * 2);
      for (let k = 0; k < intrusions; k += 1) {
        chars[Math.floor(random() * chars.length)] = intruders[Math.floor(random() * intruders.length)];
      }
      const payload = chars.join('');
      const dataUrl = `data:image/png;base64,${payload}`;
      if (valid(payload)) {
        expect(decodeImageDataUrl(dataUrl)).toEqual(Buffer.from(payload, 'base64'));
        accepted += 1;
      } else {
        expect(reason(() => decodeImageDataUrl(dataUrl))).toMatch(/base64/);
      }
    }
    expect(accepted).toBeGreaterThan(500);
    expect(accepted).toBeLessThan(2500);
  });

  it('rejects an empty payload', () => {
    expect(reason(() => decodeImageDataUrl('data:image/png;base64,'))).toMatch(/empty/);
  });

  it('rejects a payload that decodes to 10 MB or more, judged from the encoded length', () => {
    const tenMb = 'A'.repeat(Math.ceil((10 * 1024 * 1024) / 3) * 4);
    expect(reason(() => decodeImageDataUrl(`data:image/png;base64,${tenMb}`))).toMatch(/10 MB/);
    // Invalid characters after an oversized prefix are not even scanned: the size check comes first.
    expect(reason(() => decodeImageDataUrl(`data:image/png;base64,${tenMb.slice(4)}!!!!`))).toMatch(/10 MB/);
  });

  it('accepts a payload just under the limit', () => {
    const bytes = MAX_IMAGE_BYTES - (MAX_IMAGE_BYTES % 3); // a multiple of 3: no padding needed
    const payload = 'A'.repeat((bytes / 3) * 4);
    expect(decodeImageDataUrl(`data:image/png;base64,${payload}`)).toHaveLength(bytes);
  });

  it('honours a smaller explicit limit', () => {
    expect(reason(() => decodeImageDataUrl('data:image/png;base64,AAAAAAAA', 5))).toMatch(/10 MB/);
  });
});
