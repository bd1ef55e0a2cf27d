// STAND-IN (lead): minimal engine so the app boots while the real local analyst is being written.
import { Injectable } from '@nestjs/common';
import sharp from 'sharp';
import { TasteGenerationError, TasteImageInput, TasteResult } from './taste.types';

@Injectable()
export class TasteService {
  async generate(images: TasteImageInput[]): Promise<TasteResult> {
    const hexes: string[] = [];
    for (const [i, img] of images.entries()) {
      try {
        const { dominant } = await sharp(img.data).stats();
        hexes.push(
          '#' + [dominant.r, dominant.g, dominant.b].map((v) => v.toString(16).padStart(2, '0')).join(''),
        );
      } catch {
        throw new TasteGenerationError(`image ${i + 1} could not be decoded`, false);
      }
    }
    return {
      captions: hexes.map((h) => `Dominant colour ${h}.`),
      taste: `Prefers ${hexes.join(', ')}.`,
      styleAttributes: ['classic'],
      tags: hexes,
      palette: hexes.map((hex) => ({
        name: hex,
        hex,
        oklab: { l: 0.5, a: 0, b: 0 },
        share: 1 / hexes.length,
      })),
      patterns: ['solid'],
    };
  }
}
