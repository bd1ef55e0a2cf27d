import { Injectable, Logger, OnModuleDestroy } from '@nestjs/common';
import { ConfigService } from '@nestjs/config';
import type { AllConfig } from '../config/configuration';
import { mapBounded } from '../common/concurrency';
import { DATA_URL_PREFIX, decodeImageDataUrl } from './data-url';
import { ImageRejectedError, INGEST_CONCURRENCY } from './image-limits';
import { IngestedImage, verifyAndNormalizeImage } from './image-verifier';
import { describeUrl, SafeImageFetcher } from './safe-image-fetcher';
import { ImageErrorCode, ImageIngestionException } from './storage.exception';

export type { IngestedImage } from './image-verifier';

/** Where an image comes from: a public https URL, or a `data:image/<subtype>;base64,` URL. */
export type ImageSource = { kind: 'url'; url: string } | { kind: 'data'; dataUrl: string };

/**
 * Turns user-supplied image sources into verified, metadata-free image bytes. Used by core creation,
 * core image replacement and the catalogue importer. Every failure is a 400 naming the image
 * (1-based position in the combined list) and the reason.
 */
@Injectable()
export class ImageIngestionService implements OnModuleDestroy {
  private readonly logger = new Logger(ImageIngestionService.name);
  private readonly fetcher: SafeImageFetcher;

  constructor(config: ConfigService<AllConfig, true>) {
    const ingest = config.get('ingest', { infer: true });
    this.fetcher = new SafeImageFetcher({ allowedHosts: ingest.allowedHosts, timeoutMs: ingest.timeoutMs });
  }

  /**
   * Cheap checks of every source before anything is fetched or decoded (URL scheme, credentials,
   * literal addresses and ports; data URL prefix), so a bad last image costs no fetch of the first.
   */
  precheck(sources: readonly ImageSource[]): void {
    sources.forEach((source, index) => {
      try {
        if (source.kind === 'url') this.fetcher.checkUrl(source.url);
        else if (!DATA_URL_PREFIX.test(source.dataUrl)) {
          throw new ImageRejectedError('not a data URL of the form data:image/<subtype>;base64,<data>');
        }
      } catch (err) {
        if (!(err instanceof ImageRejectedError)) throw err;
        throw ImageIngestionException.of(
          err,
          `image ${index + 1} (${describeSource(source)}): ${err.message}`,
        );
      }
    });
  }

  /**
   * Ingests all sources at once (INGEST_CONCURRENCY; the decodes are bounded per process), in order.
   * `then`, when given, runs on each image as soon as it is ingested (e.g. to store it) and its result
   * takes the image's place. After a failure no further source is started; once the running ones have
   * settled, the failure of the lowest position is thrown (an ImageIngestionException, a 400, for a bad image).
   */
  ingestAll(sources: readonly ImageSource[]): Promise<IngestedImage[]>;
  ingestAll<R>(
    sources: readonly ImageSource[],
    then: (image: IngestedImage, index: number) => Promise<R>,
  ): Promise<R[]>;
  ingestAll<R>(
    sources: readonly ImageSource[],
    then?: (image: IngestedImage, index: number) => Promise<R>,
  ): Promise<(IngestedImage | R)[]> {
    return mapBounded(sources, INGEST_CONCURRENCY, async (source, index) => {
      const image = await this.ingestOne(source, index);
      return then ? then(image, index) : image;
    });
  }

  /** Ingests one source; `index` is its 0-based position, used in the error message. */
  async ingestOne(source: ImageSource, index: number): Promise<IngestedImage> {
    try {
      const bytes =
        source.kind === 'url'
          ? (await this.fetcher.fetch(source.url)).data
          : decodeImageDataUrl(source.dataUrl);
      return await verifyAndNormalizeImage(bytes);
    } catch (err) {
      const where = `image ${index + 1} (${describeSource(source)})`;
      if (err instanceof ImageRejectedError)
        throw ImageIngestionException.of(err, `${where}: ${err.message}`);
      this.logger.error(
        `image ${index + 1}: unexpected ingestion failure`,
        err instanceof Error ? err.stack : err,
      );
      throw new ImageIngestionException(ImageErrorCode.Rejected, `${where}: could not be processed`);
    }
  }

  async onModuleDestroy(): Promise<void> {
    await this.fetcher.close();
  }
}

/** A short, credential-free description of a source for error messages. */
export function describeSource(source: ImageSource): string {
  if (source.kind === 'url') return describeUrl(source.url);
  const head = source.dataUrl.slice(0, 40);
  const comma = head.indexOf(',');
  return comma >= 0 ? `${head.slice(0, comma + 1)}...` : `${head}${source.dataUrl.length > 40 ? '...' : ''}`;
}
