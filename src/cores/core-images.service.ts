import { MAX_IMAGES_PER_CORE } from './dto/core.dto';
import { BadRequestException, Injectable, Logger } from '@nestjs/common';
import { ImageIngestionService, ImageSource, ImageStore, newImageKey } from '../storage';
import { NewCoreImage } from './cores.repository';

/** Turns request images into stored objects, and removes stored objects again. */
@Injectable()
export class CoreImagesService {
  private readonly logger = new Logger(CoreImagesService.name);

  constructor(
    private readonly ingestion: ImageIngestionService,
    private readonly store: ImageStore,
  ) {}

  /** The request's images as one ordered list (`imageUrls` first, then `images`), 1 to 5 in total. */
  sources(imageUrls: string[] | undefined, images: string[] | undefined): ImageSource[] {
    const sources: ImageSource[] = [
      ...(imageUrls ?? []).map((url): ImageSource => ({ kind: 'url', url })),
      ...(images ?? []).map((dataUrl): ImageSource => ({ kind: 'data', dataUrl })),
    ];
    if (sources.length < 1 || sources.length > MAX_IMAGES_PER_CORE) {
      throw new BadRequestException(
        `A core needs 1 to ${MAX_IMAGES_PER_CORE} images across imageUrls and images; got ${sources.length}.`,
      );
    }
    this.ingestion.precheck(sources);
    return sources;
  }

  /**
   * Fetches, verifies and stores every image. All or nothing: when one image fails, the objects
   * already written are removed before the error propagates.
   */
  async ingestAndStore(sources: ImageSource[]): Promise<NewCoreImage[]> {
    const ingested = await this.ingestion.ingestAll(sources);
    const stored: NewCoreImage[] = [];
    try {
      for (const [position, img] of ingested.entries()) {
        const storageKey = newImageKey(img.ext);
        await this.store.put(storageKey, img.data, img.contentType);
        stored.push({
          position,
          storageKey,
          url: this.store.publicUrl(storageKey),
          contentType: img.contentType,
          bytes: img.bytes,
          width: img.width,
          height: img.height,
          sha256: img.sha256,
        });
      }
      return stored;
    } catch (err) {
      await this.purge(stored.map((s) => s.storageKey));
      throw err;
    }
  }

  /** Deletes objects; never throws. Returns how many were removed and how many could not be. */
  async purge(keys: string[]): Promise<{ purged: number; failed: number }> {
    const results = await Promise.allSettled(keys.map((key) => this.store.delete(key)));
    let failed = 0;
    results.forEach((r, i) => {
      if (r.status === 'rejected') {
        failed += 1;
        this.logger.error(`could not delete image object ${keys[i]}: ${String(r.reason)}`);
      }
    });
    return { purged: keys.length - failed, failed };
  }

  read(key: string): Promise<Buffer> {
    return this.store.read(key);
  }
}
