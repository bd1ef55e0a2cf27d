import { colourDistance } from './colour-vocabulary';
import type { ImageAnalysis } from './image-analysis';
import { ANALYSIS } from './image-thresholds';
import type { PaletteColour } from './taste.types';

/**
 * A core's photographs settle each other's light (ADR 0066). A scene close to the open-shade line is
 * a toss-up by its own pixels: a lit mid-grey wall and a white wall in shade put the highlights at the
 * same lightness (ADR 0063), and the wrong reading exposes a lit stone up to cream or leaves a shaded
 * one taupe. Such an image comes with both readings (`otherLight`). The core's other images, those
 * whose light was clear, are the evidence: when the other reading's main colour is one of theirs and
 * the line's reading is not as near, the other reading is kept. With no clear image to go by, or
 * when neither reading is borne out, the line's reading stands. The result carries no `otherLight`.
 */
export function settleLight(analyses: readonly ImageAnalysis[]): ImageAnalysis[] {
  const t = ANALYSIS.light;
  const clear = analyses.filter((a) => a.otherLight === undefined);
  const evidence = clear.flatMap((a) => a.palette.filter((c) => c.share >= t.agreeMinShare));
  return analyses.map((a) => {
    const { otherLight, ...reading } = a;
    if (otherLight === undefined || evidence.length === 0) return reading;
    const line = distanceToEvidence(reading.palette[0], evidence);
    const other = distanceToEvidence(otherLight.palette[0], evidence);
    return other < ANALYSIS.palette.readingsApart && other + t.agreeBy < line ? otherLight : reading;
  });
}

/** The distance (`colourDistance`) from `colour` to the nearest of `evidence`. */
function distanceToEvidence(colour: PaletteColour, evidence: readonly PaletteColour[]): number {
  return Math.min(...evidence.map((e) => colourDistance(colour.oklab, e.oklab)));
}
