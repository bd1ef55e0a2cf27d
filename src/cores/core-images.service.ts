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
   * Fetches, verifies and stores every image, all of them at once (each is written as soon as it is
   * verified). All or nothing: when one image fails, every object this call wrote is removed, once the
   * others have settled, before the error propagates.
   */
  async ingestAndStore(sources: ImageSource[]): Promise<NewCoreImage[]> {
    const keys: string[] = [];
    try {
      return await this.ingestion.ingestAll(sources, async (img, position): Promise<NewCoreImage> => {
        const storageKey = newImageKey(img.ext);
        keys.push(storageKey);
        await this.store.put(storageKey, img.data, img.contentType);
        return {
          position,
          storageKey,
          url: this.store.publicUrl(storageKey),
          contentType: img.contentType,
          bytes: img.bytes,
          width: img.width,
          height: img.height,
          sha256: img.sha256,
        };
      });
    } catch (err) {
      // A failed put may have left part of its object (the fs driver's metadata file): purge every key.
      await this.purge(keys);
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
