import { OutboundRejectedError } from './safe-outbound';

/** Every image must be under 10 MB (spec section 8): at most this many bytes. */
export const MAX_IMAGE_BYTES = 10 * 1024 * 1024 - 1;
/** sharp trusts header dimensions; refuse decoding anything larger than this many pixels. */
export const MAX_IMAGE_PIXELS = 50_000_000;
/** How many images are fetched or decoded at once per ingestAll call. */
export const INGEST_CONCURRENCY = 3;
/** How many sharp decodes run at once in this process. */
export const DECODE_CONCURRENCY = 2;
/** Redirects followed per URL, each checked like the first URL. */
export const MAX_REDIRECTS = 3;

/** A reason an image was refused; turned into a 400 naming the image by the ingestion service. */
export class ImageRejectedError extends OutboundRejectedError {
  constructor(reason: string) {
    super(reason);
    this.name = 'ImageRejectedError';
  }
}
