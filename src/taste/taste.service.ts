import { Inject, Injectable, OnApplicationShutdown, Optional } from '@nestjs/common';
import { ConfigService } from '@nestjs/config';
import { AllConfig } from '../config/configuration';
import { AnalysisPool } from './analysis-pool';
import { settleLight, withLitReadings } from './core-light';
import type { ImageAnalysis } from './image-analysis';
import { OpenAiTasteProvider } from './openai.provider';
import { LocalTasteProvider } from './local-taste.provider';
import { writeProfile } from './profile-writer';
import { TASTE_PROVIDER, type TasteProvider } from './taste-provider';
import { TasteGenerationError, TasteImageInput, TasteResult } from './taste.types';
import { MetricsService } from '../metrics/metrics.service';
import { mapBounded } from '../common/concurrency';

/** At most two images of a core are analysed at once: the pool's threads, and memory stays bounded. */
const ANALYSIS_CONCURRENCY = 2;

/** The provider named by `taste.provider`: the module's factory and the service's fallback use it. */
export function createTasteProvider(config: ConfigService<AllConfig, true>): TasteProvider {
  return config.get('taste', { infer: true }).provider === 'openai'
    ? new OpenAiTasteProvider(config)
    : new LocalTasteProvider();
}

/**
 * The taste engine: from 1 to 5 images, a caption per image and one taste profile with style
 * attributes, tags, the structured palette and patterns. The local analyst always runs (search needs
 * its palette), in low-priority worker threads (AnalysisPool); the configured TasteProvider writes the
 * captions and the profile.
 */
@Injectable()
export class TasteService implements OnApplicationShutdown {
  private readonly provider: TasteProvider;
  private readonly providerName: string;
  private readonly analysisPool = new AnalysisPool();

  /** Outside Nest (scripts, tests) the provider may be omitted: it is then built from the config. */
  constructor(
    config: ConfigService<AllConfig, true>,
    @Optional() @Inject(TASTE_PROVIDER) provider?: TasteProvider,
    @Optional() private readonly metrics?: MetricsService,
  ) {
    this.provider = provider ?? createTasteProvider(config);
    this.providerName = config.get('taste', { infer: true }).provider;
  }

  /**
   * The local analysis of each image, in input order (product image colour extraction reads one image
   * at a time). With `otherLight`, a scene near the open-shade line also carries its other reading,
   * for `settleLight` (a clearly dim one's lit reading is asked for afterwards, `withLitReadings`).
   */
  async analyse(images: TasteImageInput[], otherLight = false): Promise<ImageAnalysis[]> {
    return mapBounded(images, ANALYSIS_CONCURRENCY, (img, i) =>
      this.analysisPool.analyse(img.data, i, { otherLight }),
    );
  }

  /** After the job workers have drained (their shutdown hooks run first), the analysis threads end. */
  async onApplicationShutdown(): Promise<void> {
    await this.analysisPool.close();
  }

  async generate(images: TasteImageInput[]): Promise<TasteResult> {
    // a core's images settle the light of those the open-shade line cannot call or reads as dim
    // (ADRs 0066 and 0070)
    const read = await this.analyse(images, true);
    const analyses = settleLight(
      await withLitReadings(
        read,
        (i) => this.analysisPool.analyse(images[i].data, i, { light: 'lit' }),
        ANALYSIS_CONCURRENCY,
      ),
    );
    const { palette, patterns } = writeProfile(analyses);
    const described = await this.provider.describeTaste(images, analyses).catch((err: unknown) => {
      if (err instanceof TasteGenerationError) this.metrics?.providerError(this.providerName, err.transient);
      throw err;
    });
    return { ...described, palette, patterns };
  }
}
