// Bounds on image bytes that both ingestion (storage/) and the taste engine (taste/) apply, so
// neither module imports the other for them.

/**
 * sharp trusts header dimensions; refuse decoding anything larger than this many pixels (checked on the
 * header, before any decode). Scaling to STORED_MAX_EDGE (storage/image-limits.ts) mostly streams (sequential read), but where the
 * whole decoded image must be held (an EXIF rotation without shrink-on-load) 24 MP (6000x4000, a
 * 24-megapixel camera) is about 72-96 MB, and DECODE_CONCURRENCY bounds how many run at once. At the
 * former 50 MP cap a 190 KB data URL of a 7000x7000 PNG cost about 200 MB a decode (issue 16).
 */
export const MAX_IMAGE_PIXELS = 24_000_000;
