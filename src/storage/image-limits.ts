import { OutboundRejectedError } from './safe-outbound';

/** Every image must be under 10 MB (spec section 8): at most this many bytes. */
export const MAX_IMAGE_BYTES = 10 * 1024 * 1024 - 1;
/**
 * sharp trusts header dimensions; refuse decoding anything larger than this many pixels (checked on the
 * header, before any decode). Ingestion re-encodes every image at full size to strip its metadata, and a
 * full decode costs about 4 bytes a pixel: 24 MP (6000x4000, a 24-megapixel camera) is about 96 MB, and
 * DECODE_CONCURRENCY bounds a process to two such decodes at once. At the former 50 MP cap a 190 KB
 * data URL of a 7000x7000 PNG cost about 200 MB a decode (issue 16).
 */
export const MAX_IMAGE_PIXELS = 24_000_000;
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
