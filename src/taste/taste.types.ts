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
/** What a tenant sees when the external image-analysis provider failed (the details go to the log). */
export const PROVIDER_FAILED_MESSAGE =
  'Taste generation failed: the image analysis provider returned an error.';

export class TasteGenerationError extends Error {
  /** The text stored in the core's and job's `error`; `message` (logged only) may carry provider details. */
  readonly publicMessage: string;

  constructor(
    message: string,
    readonly transient: boolean,
    publicMessage?: string,
  ) {
    super(message);
    this.name = 'TasteGenerationError';
    this.publicMessage = publicMessage ?? message;
  }

  /** A provider failure: detailed for the operator's log, generic for the tenant. */
  static provider(detail: string, transient: boolean): TasteGenerationError {
    return new TasteGenerationError(detail, transient, PROVIDER_FAILED_MESSAGE);
  }
}
