/** The taste engine's public types (see TasteService.generate). */
export interface TasteImageInput {
  data: Buffer;
  contentType: string;
}

export interface PaletteColour {
  name: string;
  hex: string;
  oklab: { l: number; a: number; b: number };
  share: number;
}

export type PatternKind = 'solid' | 'striped' | 'checked' | 'print';

export interface TasteResult {
  captions: string[];
  taste: string;
  styleAttributes: string[];
  tags: string[];
  palette: PaletteColour[];
  patterns: PatternKind[];
}

/** A generation failure with a message a user can act on; `transient` failures are retried. */
export class TasteGenerationError extends Error {
  constructor(
    message: string,
    readonly transient: boolean,
  ) {
    super(message);
    this.name = 'TasteGenerationError';
  }
}
