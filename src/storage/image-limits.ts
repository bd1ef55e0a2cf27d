import { OutboundRejectedError } from './safe-outbound';

/** Every image must be under 10 MB (README, Images: ingestion, SSRF rules and storage): at most this many bytes. */
export const MAX_IMAGE_BYTES = 10 * 1024 * 1024 - 1;
// The decompression-bomb bound, shared with the taste engine's decode: src/common/image-bounds.ts.
export { MAX_IMAGE_PIXELS } from '../common/image-bounds';
/**
 * Longest edge of a stored image, in pixels: larger images are scaled down to fit (never up) when they
 * are re-encoded. It serves every reader: the API's image URLs, the dashboard, the local taste engine
 * (a 128 px working copy) and the openai provider (768 px). JPEG and WebP above twice this size are
 * decoded at reduced size (shrink-on-load), the bulk of the saving (ADR 0027).
 */
export const STORED_MAX_EDGE = 1600;
/** How many images of one ingestAll call are fetched or decoded at once: all of a core's images. */
export const INGEST_CONCURRENCY = 5;
/**
 * How many sharp decodes run at once in this process. Each runs on libuv's thread pool (4 threads by
 * default, shared with file and DNS work); three leave one thread for the object writes and the
 * fetches' host lookups of the requests beside them.
 */
export const DECODE_CONCURRENCY = 3;
/** Redirects followed per URL, each checked like the first URL. */
export const MAX_REDIRECTS = 3;

/** A reason an image was refused; turned into a 400 naming the image by the ingestion service. */
export class ImageRejectedError extends OutboundRejectedError {
  constructor(reason: string) {
    super(reason);
    this.name = 'ImageRejectedError';
  }
}

/**
 * An image URL that could not be fetched (network failure, timeout, HTTP status other than 2xx, a
 * broken redirect) as opposed to one refused by policy or content: the same URL may work later.
 */
export class ImageFetchFailedError extends ImageRejectedError {
  constructor(reason: string) {
    super(reason);
    this.name = 'ImageFetchFailedError';
  }
}
