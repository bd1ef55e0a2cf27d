import type { ImageAnalysis } from './image-analysis';
import { captionFor, writeProfile } from './profile-writer';
import type { TasteDescription, TasteProvider } from './taste-provider';
import type { TasteImageInput } from './taste.types';

/** The default provider: deterministic captions and profile written by rules from the local analysis. */
export class LocalTasteProvider implements TasteProvider {
  readonly name = 'local' as const;

  describeTaste(_images: TasteImageInput[], analyses: ImageAnalysis[]): Promise<TasteDescription> {
    const profile = writeProfile(analyses);
    return Promise.resolve({
      captions: analyses.map(captionFor),
      taste: profile.taste,
      styleAttributes: profile.styleAttributes,
      tags: profile.tags,
    });
  }
}
