import { randomBytes } from 'node:crypto';
import type { Readable } from 'node:stream';

/** Keys look like `img/<32 hex>.<ext>`: a short prefix, 128 random bits, an extension. Nothing else is accepted. */
/**
 * Cache lifetime of served images (fs route and S3 objects): a deleted or replaced image stops being
 * served by browsers and shared caches within 5 minutes (README, "Security").
 */
export const IMAGE_CACHE_MAX_AGE_SECONDS = 300;
export const IMAGE_CACHE_CONTROL = `public, max-age=${IMAGE_CACHE_MAX_AGE_SECONDS}`;

export const IMAGE_KEY_PATTERN = /^[a-z0-9-]{1,32}\/[0-9a-f]{32}\.[a-z0-9]{2,5}$/;

export function isValidImageKey(key: string): boolean {
  return IMAGE_KEY_PATTERN.test(key);
}

/** A new unguessable key (128 random bits, hex) for an image with the given extension, e.g. `img/<32 hex>.png`. */
export function newImageKey(ext: string, prefix = 'img'): string {
  const cleanExt = ext.replace(/^\./, '').toLowerCase();
  const key = `${prefix}/${randomBytes(16).toString('hex')}.${cleanExt}`;
  if (!isValidImageKey(key)) throw new Error(`invalid image key parts: prefix=${prefix} ext=${ext}`);
  return key;
}

/** A stored image opened for serving by this service. */
export interface StoredImageStream {
  stream: Readable;
  contentType: string;
  size: number;
}

/**
 * Where image bytes live. Used as the injection token; the driver (`fs` or `s3`) is chosen by config.
 * Keys must match {@link IMAGE_KEY_PATTERN}; use {@link newImageKey}.
 */
export abstract class ImageStore {
  abstract put(key: string, data: Buffer, contentType: string): Promise<void>;
  /** Idempotent: deleting a missing key succeeds. Throws only on a real failure. */
  abstract delete(key: string): Promise<void>;
  abstract exists(key: string): Promise<boolean>;
  /** The stored bytes (the generation worker reads images back through this). */
  abstract read(key: string): Promise<Buffer>;
  /** The unauthenticated URL the image is served at. */
  abstract publicUrl(key: string): string;
  /** Readiness check: throws when the store cannot be used. */
  abstract ping(): Promise<void>;
  /**
   * The keys under `prefix` (e.g. `img/`) last written before `before`, for the orphan sweeper.
   * A key may be listed more than once.
   */
  abstract listKeys(prefix: string, before: Date): AsyncIterable<string>;

  /** Removes a driver's own leftovers (the fs driver's `.tmp` files) older than `before`; returns how many. */
  removeStaleTemporaries(_before: Date): Promise<number> {
    return Promise.resolve(0);
  }

  /**
   * Opens an image for `GET /images/*key`. Only drivers whose images this service serves itself
   * (`fs`) return a stream; others return null (their public URL points elsewhere).
   */
  open(_key: string): Promise<StoredImageStream | null> {
    return Promise.resolve(null);
  }
}

export function assertValidKey(key: string): void {
  if (!isValidImageKey(key)) throw new Error(`invalid image key: ${JSON.stringify(key.slice(0, 80))}`);
}
