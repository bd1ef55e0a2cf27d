/**
 * The body of one analysis-pool thread (see analysis-pool.ts): the whole local measurement of one
 * image, off the main event loop. A TasteGenerationError crosses the thread boundary as data, because
 * a thrown error reaches the pool as a plain Error and loses its class and its `transient` flag.
 */
import { analyseImage, type ImageAnalysis, type LightReading } from './image-analysis';
import { TasteGenerationError } from './taste.types';

export interface AnalysisTask {
  /** The encoded image (a Buffer arrives as a Uint8Array after the structured clone). */
  data: Uint8Array;
  index: number;
  /** Read a scene near the open-shade line in both lights (`analyseImage`'s `otherLight`)... */
  otherLight: boolean;
  /** ...or read it in this light only (`analyseImage`'s `light`). */
  light?: LightReading;
}

export type AnalysisOutcome =
  { analysis: ImageAnalysis } | { failure: { message: string; transient: boolean; publicMessage: string } };

export default async function analyse(task: AnalysisTask): Promise<AnalysisOutcome> {
  const data = Buffer.from(task.data.buffer, task.data.byteOffset, task.data.byteLength);
  try {
    return {
      analysis: await analyseImage(data, task.index, { otherLight: task.otherLight, light: task.light }),
    };
  } catch (err) {
    if (!(err instanceof TasteGenerationError)) throw err;
    const { message, transient, publicMessage } = err;
    return { failure: { message, transient, publicMessage } };
  }
}
