import { Injectable, Logger } from '@nestjs/common';
import { ImageIngestionService } from '../storage';
import { colourFamily } from '../taste/colour-vocabulary';
import { TasteService } from '../taste/taste.service';
import { ColourFeatures } from './product-colour';
import { mapBounded } from '../common/concurrency';

/** Images analysed at once during an import (fetching dominates; the decode is bounded by the engine). */
const ANALYSIS_CONCURRENCY = 4;

/**
 * `catalogue:import --analyse-images`: fetches each product image through the SSRF-safe ingester and
 * takes the dominant colour the taste engine's local analyst measures on it, so product colours and
 * core palettes come from the same analysis. A product whose image cannot be fetched or analysed keeps
 * the colour of its feed row.
 */
@Injectable()
export class ProductImageAnalyser {
  private readonly logger = new Logger(ProductImageAnalyser.name);

  constructor(
    private readonly ingestion: ImageIngestionService,
    private readonly taste: TasteService,
  ) {}

  async dominantColour(imageUrl: string): Promise<ColourFeatures> {
    const image = await this.ingestion.ingestOne({ kind: 'url', url: imageUrl }, 0);
    const [analysis] = await this.taste.analyse([{ data: image.data, contentType: image.contentType }]);
    const top = analysis.palette[0];
    return { ...top.oklab, name: top.name, family: colourFamily(top.name) ?? 'neutral' };
  }

  /** Dominant colours of many images, a few at a time; failures are reported, not thrown. */
  async dominantColours(urls: readonly string[]): Promise<(ColourFeatures | { error: string })[]> {
    return mapBounded(urls, ANALYSIS_CONCURRENCY, async (url) => {
      try {
        return await this.dominantColour(url);
      } catch (err) {
        const message = err instanceof Error ? err.message : String(err);
        this.logger.warn(`product image not analysed: ${message}`);
        return { error: message.replace(/^image 1 /, 'image ') };
      }
    });
  }
}
