import { Injectable, Optional } from '@nestjs/common';
import { ConfigService } from '@nestjs/config';
import { AllConfig } from '../config/configuration';
import { analyseImage, ImageAnalysis } from './image-analysis';
import { OpenAiTasteProvider } from './openai.provider';
import { captionFor, writeProfile } from './profile-writer';
import { TasteImageInput, TasteResult } from './taste.types';

/** At most two images decode at once: sharp is multi-threaded already, and memory stays bounded. */
const ANALYSIS_CONCURRENCY = 2;

async function mapBounded<T, R>(
  items: T[],
  limit: number,
  fn: (item: T, index: number) => Promise<R>,
): Promise<R[]> {
  const out = new Array<R>(items.length);
  let next = 0;
  const worker = async (): Promise<void> => {
    while (next < items.length) {
      const i = next;
      next += 1;
      out[i] = await fn(items[i], i);
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
  return out;
}

/**
 * The taste engine: from 1 to 5 images, a caption per image and one taste profile with style
 * attributes, tags, the structured palette and patterns. The local analyst always runs (search needs
 * its palette); with TASTE_PROVIDER=openai a vision model writes the captions and the profile.
 */
@Injectable()
export class TasteService {
  private readonly provider: 'local' | 'openai';

  constructor(
    config: ConfigService<AllConfig, true>,
    @Optional() private readonly openai?: OpenAiTasteProvider,
  ) {
    this.provider = config.get('taste', { infer: true }).provider;
  }

  async analyse(images: TasteImageInput[]): Promise<ImageAnalysis[]> {
    return mapBounded(images, ANALYSIS_CONCURRENCY, (img, i) => analyseImage(img.data, i));
  }

  async generate(images: TasteImageInput[]): Promise<TasteResult> {
    const analyses = await this.analyse(images);
    const local = writeProfile(analyses);
    if (this.provider === 'openai' && this.openai) {
      const described = await this.openai.describe(images, paletteSummary(analyses));
      return { ...described, palette: local.palette, patterns: local.patterns };
    }
    return {
      captions: analyses.map(captionFor),
      taste: local.taste,
      styleAttributes: local.styleAttributes,
      tags: local.tags,
      palette: local.palette,
      patterns: local.patterns,
    };
  }
}

/** What the local analyst measured, as short lines a language model can use. */
export function paletteSummary(analyses: ImageAnalysis[]): string {
  return analyses
    .map(
      (a, i) =>
        `image ${i + 1}: ${a.palette.map((p) => `${p.name} ${Math.round(p.share * 100)}%`).join(', ')}; ` +
        `${a.surface.pattern}${a.surface.direction ? ` (${a.surface.direction})` : ''}; ` +
        `${a.character.warmth}, ${a.character.lightness}, ${a.character.saturation}, ${a.character.contrast}`,
    )
    .join('\n');
}
