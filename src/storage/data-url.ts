import { ImageRejectedError, MAX_IMAGE_BYTES } from './image-limits';

/** The start of a base64 image data URL: `data:image/<subtype>;base64,`. */
export const DATA_URL_PREFIX = /^data:image\/[a-z0-9.+-]+;base64,/i;

/** Exact decoded size of a padded base64 string whose length is a multiple of 4. */
function decodedLength(b64: string): number {
  const padding = b64.endsWith('==') ? 2 : b64.endsWith('=') ? 1 : 0;
  return (b64.length / 4) * 3 - padding;
}

/**
 * Decodes `data:image/<subtype>;base64,<data>` strictly: the prefix must match, the payload must be
 * padded base64 of the standard alphabet (no whitespace, no URL-safe alphabet, `=` only at the end),
 * and the size is checked on the
 * encoded length before anything is decoded. The declared subtype is not trusted: the caller
 * verifies the bytes.
 */
export function decodeImageDataUrl(dataUrl: string, maxBytes = MAX_IMAGE_BYTES): Buffer {
  const prefix = DATA_URL_PREFIX.exec(dataUrl.slice(0, 200));
  if (!prefix) throw new ImageRejectedError('not a data URL of the form data:image/<subtype>;base64,<data>');
  const b64 = dataUrl.slice(prefix[0].length);
  if (b64.length === 0) throw new ImageRejectedError('data URL is empty');
  if (b64.length % 4 !== 0) throw new ImageRejectedError('data URL is not valid base64');
  // Refuse by length first: no scan or allocation proportional to an oversized payload.
  const expected = decodedLength(b64);
  if (expected > maxBytes) throw new ImageRejectedError('image is 10 MB or larger');
  const bytes = Buffer.from(b64, 'base64');
  // Without scanning the payload in JavaScript (a pattern takes about 10 ms a megabyte): Node's decoder
  // skips characters outside the alphabet and stops at `=`, so any of them (whitespace, `*`, padding in
  // the middle) yields fewer bytes than the length promises; it also reads the URL-safe `-` and `_`,
  // which are looked for separately.
  if (bytes.length !== expected || b64.includes('-') || b64.includes('_')) {
    throw new ImageRejectedError('data URL is not valid base64');
  }
  return bytes;
}
