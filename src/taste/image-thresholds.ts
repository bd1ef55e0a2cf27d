/**
 * Every threshold of the local analyst in one place (decode, light, subject, palette, surface), each
 * with what it means. docs/decisions/0030-colour-model.md gives the reasoning for the colour ones.
 */
export const ANALYSIS = {
  /** Working copy: at most this many pixels on the longer side (shrink-on-load). */
  workingSize: 128,
  /** Alpha below this is transparent (not subject, not background evidence). */
  opaqueAlpha: 128,

  light: {
    /** White balance looks for neutral regions: OKLab chroma under this... */
    neutralChroma: 0.02,
    /** ...lightness inside this range (no clipped highlights, no noisy shadows)... */
    neutralMinL: 0.45,
    neutralMaxL: 0.97,
    /** ...covering at least this share of the opaque pixels; otherwise no correction. */
    neutralMinShare: 0.05,
    /** A scene is dim (open shade, an under-exposed room) when its highlights (this lightness
     * percentile), raised by `highlightCastWeight` times the highlights' cast, sit under `dimBelow`
     * (ADR 0046). The cast is the log of mean linear red over blue across the lightest
     * `highlightShare` of the pixels: open shade is lit by the sky, so its brightest surfaces (a white
     * garment, a light wall) turn cool, while a lit scene's brightest things keep their own colour.
     * A cool scene is dim up to brighter highlights (0.80 at a cast of -0.3), a warm one only under
     * darker ones (0.73 at +0.3). Fitted on tuning seeds 3-8 of bench/photo-images.ts, never on the
     * held-out seed (ADR 0046)... */
    exposurePercentile: 0.98,
    dimBelow: 0.766,
    highlightCastWeight: 0.113,
    highlightShare: 0.05,
    /** A core's scene this close to that line (`dimScore`) is read in both lights, and the reading
     * its core's other images bear out is kept (`settleLight`, ADR 0066): the other reading wins when
     * its main colour is within `palette.readingsApart` of a colour another image reads (one making
     * up at least `agreeMinShare` of that image) and nearer to it than the line's reading by
     * `agreeBy`. Around 7% of scenes fall this close. Fitted on tuning data only: eval:search's lit
     * core photographs of seeds 3-24 (named right 1,654 -> 1,677 of 1,716) and eval:taste seeds 3-8
     * put together in cores of open shade and light (no light lost more than one photograph). */
    undecidedWithin: 0.03,
    agreeBy: 0.02,
    agreeMinShare: 0.1,
    /** ...a plain backdrop counts as a scene's wall unless it is this dark (a studio backdrop, where
     * the garment is the only light thing)... */
    studioBackdropBelow: 0.25,
    /** ...a dim scene is exposed as a camera would: its highlights (often a white surface) brought
     * near paper white (ADR 0041; 0.92, a lit scene's median highlights, left white garments grey)... */
    exposureTarget: 0.96,
    /** ...by at most this linear gain... */
    maxExposureGain: 2.2,
    /** ...after its light's colour is taken back towards daylight, as a camera's shade preset does,
     * before the background's neutral pixels balance what is left (ADR 0046): linear sRGB gains from
     * CIE daylight at 7,500 K (open shade) to D65. */
    shadeGains: [1.083, 1, 0.879] as const,
    /** Per-channel cast (linear RGB gain - 1) left alone: surfaces' own tint looks like this... */
    deadband: 0.06,
    /** ...and the largest correction applied beyond it (a lit scene's; a dim one's is `dim.maxGain`). */
    maxGain: 0.25,
    /** A dim scene's light is not the reference light (open shade is skylight, cool): it is
     * balanced from the background's neutral pixels only (subject weight at most
     * `backgroundMaxWeight`, so a pale garment is never its own reference), with a wider neutral
     * chroma and a narrower deadband. The shade preset has already taken the sky out, so the balance
     * corrects only what is left, by at most `maxGain` beyond the deadband (13% a channel in all): a
     * tinted wall (peach, pink, blue) whose pixels pass as nearly neutral in shade pulled the garment
     * 12-20% the other way at the lit scene's 0.25 (stone read heather grey, white powder blue).
     * Not lower: a lit scene the gate reads as dim is warmed by the preset by mistake, and before a
     * grey wall the balance takes that back out (lilac, teal and powder blue turned warm at 0.05).
     * Fitted on tuning data (ADR 0065): eval:taste seeds 3-8 in open shade, 95.5% named right at 0.25,
     * 96.9% at 0.1, 98.3% at 0.05; eval:search's lit core photographs of seeds 25-56, 2,411 of 2,496
     * at 0.25, 2,410 at 0.1, 2,401 at 0.05. */
    dim: { backgroundMaxWeight: 0.3, neutralChroma: 0.03, deadband: 0.03, maxGain: 0.1 },
    /** A strong light from one side shows on the wall: the median lightness of the picture's two top
     * corners (`sideCornerWidth` of the width, rows `sideCornerTop` to `sideCornerBottom` of the
     * height, above a person's shoulders and a hanger's bar) differs by more than this log-ratio. On
     * tuning seeds 3-4 of bench/photo-images.ts an even light, or a window's soft 12%, leaves it at
     * 0.05-0.23 (one busy wall 0.36), and a window light of 30% puts it at 0.30-0.49 (three of 72
     * under 0.12, where a garment or a blob fills a corner) (ADR 0062). */
    sideLightAbove: 0.27,
    sideCornerWidth: 0.08,
    sideCornerTop: 0.03,
    sideCornerBottom: 0.2,
  },

  subject: {
    /** Border ring width as a share of the shorter side (at least 2 px). */
    ringShare: 0.06,
    /** Plain backdrop: this share of the ring within `plainTolerance` of its median colour. */
    plainRingShare: 0.7,
    plainTolerance: 0.05,
    /** Flood fill of a plain backdrop through pixels within this OKLab distance of it. */
    fillTolerance: 0.08,
    /** Closing radius (px) that puts back backdrop-coloured garment parts (white stripes on white). */
    closingRadius: 5,
    /** The filled subject must cover this share of the image, else every pixel counts. */
    minSubjectShare: 0.03,
    /** Centre prior (busy or lit backdrops): Gaussian sigma as a share of the side. */
    centreSigma: 0.35,
    /** A colour bin holding this share of the border ring is likely backdrop: its weight falls to
     * `commonColourFloor` (not 0: a busy wall may hold the garment's colour; the palette step drops
     * the clusters that really fill the border). */
    borderBinShare: 0.03,
    commonColourFloor: 0.3,
    /** Bins for that test: chromaticity (a/L, b/L) steps and log-lightness steps, so a wall in shadow
     * or in a lighting gradient falls in the same bins as the lit wall. */
    chromaticityStep: 0.04,
    logLightnessStep: 0.25,
    /** Below this total weight (share of pixels) the centre prior alone is used. */
    minWeightShare: 0.05,
  },

  palette: {
    /** Clusters (k-means++ seeded, deterministic) and iterations. */
    clusters: 10,
    iterations: 10,
    /** Clustering space: lightness weighted down, chromaticity scaled to this reference lightness,
     * so the lit and the shaded side of one cloth fall in one cluster. */
    lightnessWeight: 0.5,
    referenceL: 0.7,
    /** Chromaticity (a/L, b/L) is unreliable below this lightness: raw a, b are used there. */
    minChromaticityL: 0.22,
    /** Every pixel takes part in clustering with at least this weight, so the backdrop forms its own
     * clusters instead of being pulled into the garment's. */
    clusterWeightFloor: 0.2,
    /** Shading removed: a cluster's colour is taken at this lightness percentile (its lit part) in an
     * evenly lit scene. At 0.9 the pale neutrals read a median 0.005 darker than drawn, and an oatmeal
     * under a slight cool cast read as stone; 0.95 reads them true (ADR 0062)... */
    litPercentile: 0.95,
    /** ...and at this one under a strong light from one side (`light.sideLightAbove`), whose lit side
     * is brighter than the cloth's own colour: at 0.95 `eval:taste` tuning seeds 3-8 named 94.4% of
     * side-lit photos right against 95.2% at 0.9 (ADR 0061). With the vocabulary's stone at the
     * dataset's lightness (ADR 0064), 0.9 read side-lit stone as oatmeal (16 of 36 right, 94.8% of
     * side-lit photos, scratch sweep); 0.8 names 96.0% right (`eval:taste -- --seeds 3-8`). */
    sideLitPercentile: 0.8,
    /** In an even light, a cluster's lighter mode is not its lit part (ADR 0067): k-means weighs
     * lightness down, so a near-neutral cloth's cluster can take in a lighter wall's or blob's pixels
     * of its chromaticity, and its `litPercentile` lands on them (a heather grey before a light busy
     * wall read light grey, L 0.80 against a drawn 0.70). A cloth's own shading spreads its lightness
     * without a gap; the wall's pixels stand apart as a second mode. Walking up from the median in
     * `valleyStep` bins of the cluster's subject-weighted lightness, a bin under `valleyBelow` of the
     * heaviest bin so far, with a lighter bin of at least twice its weight (and less than that
     * heaviest), ends the cloth: only what lies under that bin's top is read. Fitted on tuning data:
     * eval:search's core photographs of seeds 3-24, named right 1,677 -> 1,680 of 1,716 and read more
     * than 0.05 off the drawn lightness 71 -> 65 (0.15-0.5 alike); not under a light from one side,
     * whose lit side is a mode of its own (eval:taste seeds 3-8 side-lit, 601 -> 597 with it). */
    valleyBelow: 0.25,
    valleyStep: 0.05,
    /** A cluster holding this share of the border ring is backdrop... */
    backdropBorderShare: 0.1,
    /** ...and loses all weight at this share (linear in between). */
    backdropBorderFull: 0.3,
    /** Two clusters are one cloth in light and shade when their chromaticity (a/L, b/L, at the
     * darker one's lightness) is this close and their lightness within this ratio. */
    sameChromaticity: 0.012,
    sameLightnessRatio: 1.35,
    /** ...and the lighter one's mean subject weight is at least this share of the darker one's: the
     * clusters of a light wall, weighted down as common in the border, are not a garment's lit side
     * (ADR 0050; fitted on tuning seeds 3-8 of bench/photo-images.ts, 0.5-0.8 tried). */
    sameSubjectRatio: 0.7,
    /** A backdrop cluster's pieces that do not reach the border ring are the subject's when their mean
     * subject weight is at least this many times its framed part's: about 1 / `commonColourFloor`, what
     * a colour rare in the border ring keeps over a common one (ADR 0061). A pale garment's lit middle in
     * the colour of a wall's shaded side is weighted 6-7 times its wall; a busy wall's blobs between a
     * garment's edges under 2 times theirs (2 and 3 matched the tuning seeds' cores alike). */
    enclosedSubjectRatio: 3,
    /** Pixels of kept clusters with at least this subject weight are read for the surface. */
    surfaceMinWeight: 0.2,
    /** Named colours under this share of the subject are dropped. */
    minShare: 0.04,
    /** A core's images: colours of different images closer than this (`colourDistance`) are one colour
     * read in several photographs, joined before they are named (ADR 0061). One garment's readings
     * across photographs are a median 0.02 apart; fitted on tuning seeds 1 and 3-24 of eval:search's
     * core images (0.03, 0.04, 0.045 and 0.06 tried). */
    readingsApart: 0.045,
  },

  character: {
    chromaticFrom: 0.04,
    neutralBelow: 0.25,
    lightAbove: 0.72,
    darkBelow: 0.45,
    vividAbove: 0.11,
    mutedBelow: 0.05,
    mainShare: 0.1,
    highContrastAbove: 0.4,
    tonalBelow: 0.15,
  },

  surface: {
    /** Sobel magnitude (OKLab L per px, /4) of a strong edge. */
    strongEdge: 0.08,
    orientationBins: 12,
    /** Subject pixels with a strong edge: under this share the surface is solid. */
    solidBelow: 0.04,
    stripedPeak: 0.55,
    checkedPeaks: 0.6,
    checkedSecond: 0.2,
    fineScaleAbove: 0.3,
    /** Mean gradient of a solid over this reads as a fine surface texture. */
    fineTextureAbove: 0.012,
    /** Share of a solid much lighter than its mean that reads as sheen. */
    sheenMin: 0.01,
    sheenMax: 0.08,
  },
} as const;
