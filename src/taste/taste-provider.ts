import type { ImageAnalysis } from './image-analysis';
import type { TasteImageInput } from './taste.types';

/** The text part of a taste profile: per-image captions and the condensed profile. */
export interface TasteDescription {
  captions: string[];
  taste: string;
  styleAttributes: string[];
  tags: string[];
}

/**
 * A backend that writes captions and the profile. The local analysis always runs first (the palette
 * and patterns of the result, and product search, come from it), so providers receive it.
 */
export interface TasteProvider {
  readonly name: 'local' | 'openai';
  describeTaste(images: TasteImageInput[], analyses: ImageAnalysis[]): Promise<TasteDescription>;
}

/** DI token of the provider chosen by `taste.provider` (TASTE_PROVIDER). */
export const TASTE_PROVIDER = Symbol('TASTE_PROVIDER');
