import {
  avoidFor,
  buildAndTsQuery,
  buildOrTsQuery,
  colourSimilarity,
  describingPath,
  diversify,
  phraseMatches,
  productFabric,
  productKind,
  productWords,
  RankingCandidate,
  RankingProfile,
  scoreCandidates,
  shareWeight,
  tokenize,
} from './product-ranking';
import { colourWalks, gendersFor } from './search-plan';
import { NO_AVOIDS, parseAvoids, parseShopperQuery } from './search-query';
import { colourByName } from '../taste/colour-vocabulary';
import { colourFeatures } from './product-colour';

/** A vocabulary swatch's OKLab point, as the catalogue places its vendor names. */
const swatch = (name: string) => colourByName(name)!.oklab;
const CAMEL = { l: 0.68, a: 0.03, b: 0.08 };
const CREAM = { l: 0.95, a: 0.0, b: 0.04 };
const NAVY = { l: 0.3, a: -0.01, b: -0.1 };

const PROFILE: RankingProfile = {
  styleAttributes: ['minimalist', 'relaxed tailoring'],
  tags: ['wool'],
  patterns: ['solid'],
  palette: [
    { name: 'camel', oklab: CAMEL, share: 0.6 },
    { name: 'cream', oklab: CREAM, share: 0.4 },
  ],
  avoid: NO_AVOIDS,
};

function candidate(id: string, patch: Partial<RankingCandidate> = {}): RankingCandidate {
  return {
    id,
    title: 'Coat',
    designer: 'D',
    category: 'Outerwear',
    categoryName: 'outerwear',
    material: null,
    pattern: null,
    colour: null,
    colourFamily: null,
    colourLab: null,
    ...patch,
  };
}

describe('query building', () => {
  it('joins distinct word tokens with | and drops stop words and punctuation', () => {
    expect(buildOrTsQuery(['Camel & Cream', 'the relaxed-tailoring', 'camel'])).toBe(
      'camel | cream | relaxed | tailoring',
    );
  });

  it('never lets tsquery syntax through', () => {
    const q = buildOrTsQuery(["coat' | !(xl:*) <-> & y"]);
    expect(q).toMatch(/^[a-z0-9 |]*$/);
    expect(q).toBe('coat | xl');
  });

  it('ands groups of alternatives, with no tsquery syntax from the words', () => {
    expect(buildAndTsQuery([['jumper', 'sweater', 'pullover'], ['Cashmere']])).toBe(
      '(jumper | sweater | pullover) & cashmere',
    );
    expect(buildAndTsQuery([["loafers' | !(xl:*)"], ['suede'], ['&']])).toBe('(loafers | xl) & suede');
    expect(buildAndTsQuery([['the'], []])).toBe('');
  });

  it('is empty for no usable words and bounded in length', () => {
    expect(buildOrTsQuery(['', 'a', '!!'])).toBe('');
    const many = Array.from({ length: 200 }, (_, i) => `word${i}`);
    expect(buildOrTsQuery(many, 48).split(' | ')).toHaveLength(48);
  });

  it('tokenizes accents away', () => {
    expect(tokenize('Crêpe de chine')).toEqual(['crepe', 'de', 'chine']);
  });
});

describe('gender filter', () => {
  it('lets women and men include unisex', () => {
    expect(gendersFor('women')).toEqual(['women', 'unisex']);
    expect(gendersFor('men')).toEqual(['men', 'unisex']);
    expect(gendersFor('unisex')).toEqual(['unisex']);
    expect(gendersFor(undefined)).toBeNull();
  });
});

describe('colourSimilarity', () => {
  it('is 1 for the dominant colour, lower for a minor one, near 0 for a far colour', () => {
    expect(colourSimilarity(CAMEL, PROFILE.palette)).toBeCloseTo(1, 5);
    const minor = colourSimilarity(CREAM, PROFILE.palette);
    expect(minor).toBeGreaterThan(0.5);
    expect(minor).toBeLessThan(1);
    expect(colourSimilarity(NAVY, PROFILE.palette)).toBeLessThan(0.05);
    expect(colourSimilarity(null, PROFILE.palette)).toBe(0);
  });
});

describe('scoreCandidates', () => {
  it('prefers the palette colours, keeps scores in 0..1 and explains the match', () => {
    const ranked = scoreCandidates(
      [
        candidate('navy', { colourLab: NAVY, colour: 'Navy' }),
        candidate('camel', { title: 'Minimalist coat', colourLab: CAMEL, colour: 'Camel', material: 'wool' }),
        candidate('cream', { colourLab: CREAM, colour: 'Cream' }),
      ],
      PROFILE,
      null,
    );
    expect(ranked.map((r) => r.candidate.id)).toEqual(['camel', 'cream', 'navy']);
    for (const r of ranked) {
      expect(r.score).toBeGreaterThanOrEqual(0);
      expect(r.score).toBeLessThanOrEqual(1);
    }
    expect(ranked[0].matchReasons).toEqual(
      expect.arrayContaining(['colour: camel', 'style: minimalist', 'tag: wool', 'material: wool']),
    );
  });

  it('orders equal scores by id in code-unit order (the same in every locale), whatever the input order', () => {
    const ids = ['b', 'a_1', 'B', 'a-2', 'A'];
    const ranked = scoreCandidates(
      ids.map((id) => candidate(id, { colourLab: CAMEL, colour: 'Camel' })),
      PROFILE,
      null,
    );
    expect(new Set(ranked.map((r) => r.score)).size).toBe(1);
    // localeCompare answers A, a_1, a-2, b, B (case folded, punctuation weighed differently).
    expect(ranked.map((r) => r.candidate.id)).toEqual(['A', 'B', 'a-2', 'a_1', 'b']);
  });

  it('names a colour only when the product colour is close to a palette colour', () => {
    const sage = { l: 0.72, a: -0.04, b: 0.05 }; // #9caf88, about 0.065 from camel
    const [r] = scoreCandidates([candidate('sage', { colourLab: sage, colour: 'Sage' })], PROFILE, null);
    expect(r.matchReasons.some((m) => m.startsWith('colour:'))).toBe(false);
    // A two-colour product is named by the colour that was compared (its first).
    const [two] = scoreCandidates(
      [candidate('two', { colourLab: CAMEL, colour: 'Camel/Navy' })],
      PROFILE,
      null,
    );
    expect(two.matchReasons).toContain('colour: camel');
  });

  it("counts a vendor's synonym of a palette colour as its name: raw linen is ecru, above an oatmeal named cream", () => {
    const ecru = { l: 0.862, a: 0.0, b: 0.046 };
    const oatmeal = { l: 0.803, a: 0.005, b: 0.039 };
    const profile: RankingProfile = {
      ...PROFILE,
      palette: [
        { name: 'beige', oklab: { l: 0.828, a: 0.007, b: 0.064 }, share: 0.47 },
        { name: 'ecru', oklab: ecru, share: 0.23 },
        { name: 'cream', oklab: { l: 0.91, a: 0.008, b: 0.027 }, share: 0.02 },
      ],
    };
    const ranked = scoreCandidates(
      [
        candidate('biscuit-cream', { colourLab: oatmeal, colour: 'Biscuit/Cream' }),
        candidate('raw-linen', { colourLab: ecru, colour: 'Raw Linen' }),
        candidate('ecru', { colourLab: ecru, colour: 'Ecru' }),
      ],
      profile,
      null,
    );
    const score = new Map(ranked.map((r) => [r.candidate.id, r.score]));
    expect(score.get('raw-linen')).toBe(score.get('ecru'));
    expect(score.get('raw-linen')).toBeGreaterThan(score.get('biscuit-cream') ?? 1);
  });

  it('credits the nearest name the candidates hold when none is named like the palette colour: an ecru core read as beige keeps ecru above oatmeal solids (ADR 0061)', () => {
    // eval:search seed 24's ecru core: its three photographs joined read beige, between the catalogue's
    // ecru and oatmeal swatches, nearer ecru; no product is called beige.
    const profile: RankingProfile = {
      ...PROFILE,
      styleAttributes: [],
      tags: [],
      patterns: ['solid'],
      palette: [{ name: 'beige', oklab: { l: 0.8454, a: 0.0004, b: 0.0541 }, share: 0.93 }],
    };
    const ranked = scoreCandidates(
      [
        candidate('oatmeal-solid', { colourLab: swatch('oatmeal'), colour: 'Porridge', pattern: 'Solid' }),
        candidate('ecru', { colourLab: swatch('ecru'), colour: 'Natural' }),
      ],
      profile,
      null,
    );
    expect(ranked.map((r) => r.candidate.id)).toEqual(['ecru', 'oatmeal-solid']);
    expect(ranked[1].matchReasons).toEqual(['pattern: solid']);
    // A candidate named like the palette colour takes the credit alone: no fallback then.
    const withBeige = scoreCandidates(
      [
        candidate('beige', { colourLab: swatch('beige'), colour: 'Beige' }),
        candidate('ecru', { colourLab: swatch('ecru'), colour: 'Natural' }),
      ],
      profile,
      null,
    );
    const score = new Map(withBeige.map((r) => [r.candidate.id, r.score]));
    expect((score.get('beige') ?? 0) - (score.get('ecru') ?? 0)).toBeGreaterThan(0.15);
  });

  it('credits no held name to a palette colour far from every candidate: a cognac accent does not lift camel', () => {
    const profile: RankingProfile = {
      ...PROFILE,
      styleAttributes: [],
      tags: [],
      patterns: [],
      palette: [
        { name: 'navy', oklab: swatch('navy'), share: 0.9 },
        { name: 'cognac', oklab: swatch('cognac'), share: 0.9 },
      ],
    };
    const ranked = scoreCandidates(
      [
        candidate('camel', { colourLab: swatch('camel'), colour: 'Camel' }),
        candidate('plain', { colourLab: swatch('camel'), colour: 'Sand Dune' }),
      ],
      profile,
      null,
    );
    const score = new Map(ranked.map((r) => [r.candidate.id, r.score]));
    expect(score.get('camel')).toBe(score.get('plain'));
  });

  it('does not let an accent of the palette outrank its dominant colour: a 1.5% royal blue in an ecru core (ADR 0051)', () => {
    const ecru = { l: 0.862, a: 0.0, b: 0.046 };
    const royal = { l: 0.422, a: -0.018, b: -0.158 };
    const profile: RankingProfile = {
      ...PROFILE,
      tags: ['beige', 'royal blue', 'blue'],
      palette: [
        { name: 'beige', oklab: { l: 0.831, a: 0.006, b: 0.055 }, share: 0.876 },
        { name: 'royal blue', oklab: royal, share: 0.015 },
      ],
    };
    const ranked = scoreCandidates(
      [
        candidate('royal-blue', { colourLab: royal, colour: 'Royal Blue' }),
        candidate('ecru', { colourLab: ecru, colour: 'Ecru' }),
      ],
      profile,
      null,
    );
    expect(ranked.map((r) => r.candidate.id)).toEqual(['ecru', 'royal-blue']);
  });

  it('weighs palette colours by the square root of their share of the largest', () => {
    expect(shareWeight(0.6, 0.6)).toBe(1);
    expect(shareWeight(0.3, 0.6)).toBeCloseTo(Math.SQRT1_2, 6);
    expect(shareWeight(0.015, 0.876)).toBeLessThan(0.15);
    expect(shareWeight(0, 0.5)).toBe(0);
  });

  it('ignores the brand and never reads a description', () => {
    const ranked = scoreCandidates(
      [candidate('brand', { title: 'Minimalist Club Coat', designer: 'Minimalist Club', colourLab: NAVY })],
      PROFILE,
      null,
    );
    expect(ranked[0].matchReasons).not.toContain('style: minimalist');
  });

  it('prefers query matches and names the matched words', () => {
    const ranked = scoreCandidates(
      [
        candidate('plain', { title: 'Camel trousers', categoryName: 'trousers', colourLab: CAMEL }),
        candidate('coat', { title: 'Camel overcoat', colourLab: CAMEL, colour: 'Camel' }),
      ],
      PROFILE,
      parseShopperQuery('coats'),
    );
    expect(ranked[0].candidate.id).toBe('coat');
    expect(ranked[0].matchReasons).toContain('query: coats');
  });

  it('ranks every query match above every non-match, even a non-match in the perfect colour', () => {
    const ranked = scoreCandidates(
      [
        candidate('perfect-colour', { title: 'Camel dress', categoryName: 'dresses', colourLab: CAMEL }),
        candidate('plain-coat', { title: 'Grey coat', colourLab: { l: 0.6, a: 0, b: 0 } }),
      ],
      PROFILE,
      parseShopperQuery('coat'),
    );
    expect(ranked.map((r) => r.candidate.id)).toEqual(['plain-coat', 'perfect-colour']);
    expect(ranked[0].score).toBeGreaterThanOrEqual(0.5);
    expect(ranked[1].score).toBeLessThan(0.5);
  });

  it('ranks a product matching more of the query above one matching less, whatever the profile says of it (navy knit dress)', () => {
    const query = parseShopperQuery('navy knit dress');
    const navy = query.colours[0].oklab;
    const navyProfile: RankingProfile = {
      ...PROFILE,
      styleAttributes: ['minimalist', 'relaxed tailoring', 'tailored'],
      palette: [{ name: 'navy', oklab: navy, share: 1 }],
    };
    const dress = { category: 'Dresses', categoryName: 'dresses' as const };
    const ranked = scoreCandidates(
      [
        // Every profile attribute and the palette's own colour name, but no knit.
        candidate('navy-tailored', {
          ...dress,
          title: 'Minimalist relaxed tailoring tailored wool dress',
          colourLab: navy,
          colour: 'Navy',
        }),
        candidate('navy-knit', { ...dress, title: 'Ribbed knit dress', colourLab: navy }),
        candidate('camel-knit', { ...dress, title: 'Knit midi dress', colourLab: CAMEL, colour: 'Camel' }),
        candidate('camel-plain', { ...dress, title: 'Slip dress', colourLab: CAMEL, colour: 'Camel' }),
      ],
      navyProfile,
      query,
    );
    expect(ranked.map((r) => r.candidate.id)).toEqual([
      'navy-knit',
      'navy-tailored',
      'camel-knit',
      'camel-plain',
    ]);
    expect(ranked[0].matchReasons).toContain('query: navy knit dress');
    expect(ranked.map((r) => r.score)).toEqual([...ranked.map((r) => r.score)].sort((x, y) => y - x));
  });

  it('counts what the product is and its colour over a word that describes it (knit cardigan, black leather boots)', () => {
    const knitwear = { category: 'Apparel > Knitwear > Sweaters', categoryName: 'knitwear' as const };
    const cardigans = scoreCandidates(
      [
        candidate('knit-vest', { ...knitwear, title: 'Camel Knit Vest', colourLab: CAMEL }),
        candidate('cardigan', { ...knitwear, title: 'Camel Cardigan', colourLab: CAMEL }),
        candidate('knit-cardigan', { ...knitwear, title: 'Camel Chunky Knit Cardigan', colourLab: CAMEL }),
      ],
      PROFILE,
      parseShopperQuery('knit cardigan'),
    );
    expect(cardigans.map((r) => r.candidate.id)).toEqual(['knit-cardigan', 'cardigan', 'knit-vest']);

    const query = parseShopperQuery('black leather boots');
    expect(query.head).toBe('boots');
    const black = query.colours[0].oklab;
    const shoes = { category: 'Apparel > Shoes > Boots', categoryName: 'shoes' as const };
    const boots = scoreCandidates(
      [
        candidate('brown-leather', {
          ...shoes,
          title: 'Chelsea Boots',
          material: 'Leather',
          colourLab: CAMEL,
        }),
        candidate('black-suede', { ...shoes, title: 'Chelsea Boots', material: 'Suede', colourLab: black }),
        candidate('black-leather', {
          ...shoes,
          title: 'Chelsea Boots',
          material: 'Leather',
          colourLab: black,
        }),
      ],
      PROFILE,
      query,
    );
    expect(boots.map((r) => r.candidate.id)).toEqual(['black-leather', 'black-suede', 'brown-leather']);
  });

  it('meets the head garment word under the names it goes by elsewhere: trousers are pants, a jumper a sweater', () => {
    const trousers = { category: 'Apparel > Clothing > Bottoms', categoryName: 'trousers' as const };
    const ranked = scoreCandidates(
      [
        candidate('shorts', { ...trousers, title: 'Camel Shorts', colourLab: CAMEL }),
        candidate('pants', { ...trousers, title: 'Camel Cargo Pants', colourLab: CAMEL }),
        candidate('trousers', { ...trousers, title: 'Camel Wide Leg Trousers', colourLab: CAMEL }),
      ],
      PROFILE,
      parseShopperQuery('trousers'),
    );
    expect(ranked.map((r) => [r.candidate.id, r.matchReasons.find((m) => m.startsWith('query:'))])).toEqual([
      ['pants', 'query: trousers'],
      ['trousers', 'query: trousers'],
      ['shorts', undefined],
    ]);
    const knitwear = { category: 'Apparel > Knitwear', categoryName: 'knitwear' as const };
    const jumpers = scoreCandidates(
      [
        candidate('cardigan', { ...knitwear, title: 'Camel Cardigan', colourLab: CAMEL }),
        candidate('sweater', { ...knitwear, title: 'Camel Crew Neck Sweater', colourLab: CAMEL }),
      ],
      PROFILE,
      parseShopperQuery('wool jumper'),
    );
    expect(jumpers.map((r) => r.candidate.id)).toEqual(['sweater', 'cardigan']);
  });

  it('matches the head against what the product is, its title, not the group its path files it under', () => {
    // The realistic feed files every knit under `Knitwear > Sweaters` and every top under `Tops > T-Shirts`.
    const sweaters = {
      category: 'Apparel & Accessories > Clothing > Knitwear > Sweaters',
      categoryName: 'knitwear' as const,
    };
    const knits = scoreCandidates(
      [
        candidate('cardigan', { ...sweaters, title: 'Camel Cardigan', colourLab: CAMEL }),
        candidate('vest', { ...sweaters, title: 'Camel Knit Vest', colourLab: CAMEL }),
        candidate('sweater', { ...sweaters, title: 'Navy Cable Knit Sweater', colourLab: NAVY }),
      ],
      PROFILE,
      parseShopperQuery('sweater'),
    );
    // The navy sweater is far from the camel palette, and still first: it is the only sweater.
    expect(knits.map((r) => [r.candidate.id, r.matchReasons.find((m) => m.startsWith('query:'))])).toEqual([
      ['sweater', 'query: sweater'],
      ['cardigan', undefined],
      ['vest', undefined],
    ]);
    const tees = {
      category: 'Apparel & Accessories > Clothing > Tops > T-Shirts',
      categoryName: 'tops' as const,
    };
    const tops = [
      candidate('polo', { ...tees, title: 'Camel Polo Shirt', colourLab: CAMEL }),
      candidate('tank', { ...tees, title: 'Camel Tank Top', colourLab: CAMEL }),
      candidate('tee', { ...tees, title: 'Navy Boxy Tee', colourLab: NAVY }),
      candidate('t-shirt', { ...tees, title: 'Navy Crew Neck T-Shirt', colourLab: NAVY }),
    ];
    for (const text of ['t-shirt', 'tee', 't shirt']) {
      const ranked = scoreCandidates(tops, PROFILE, parseShopperQuery(text));
      expect(
        ranked
          .slice(0, 2)
          .map((r) => r.candidate.id)
          .sort(),
      ).toEqual(['t-shirt', 'tee']);
    }
    // A T-shirt's `shirt` is no shirt: a shirt query's head is not met by one.
    const shirts = scoreCandidates(
      [candidate('t-shirt', { ...tees, title: 'Camel T-Shirt', colourLab: CAMEL })],
      PROFILE,
      parseShopperQuery('linen shirt'),
    );
    expect(shirts[0].matchReasons.find((m) => m.startsWith('query:'))).toBeUndefined();
    // Without a garment word in the title, the path says what the product is.
    expect([...productKind({ title: 'The Everyday One', designer: 'D', category: tees.category })]).toEqual([
      'top',
      'tshirt',
    ]);
    expect([
      ...productKind({ title: 'Cable Knit Sweater', designer: 'D', category: sweaters.category }),
    ]).toEqual(['knit', 'sweater']);
  });

  it('meets a head that names a whole category (bag, shoes) by the category, whatever garment the title names', () => {
    const bags = { category: 'Apparel & Accessories > Handbags', categoryName: 'bags' as const };
    const ranked = scoreCandidates(
      [
        candidate('tote', { ...bags, title: 'Navy Leather Tote', colourLab: NAVY }),
        candidate('scarf', {
          title: 'Camel Scarf',
          category: 'Accessories',
          categoryName: 'accessories',
          colourLab: CAMEL,
        }),
      ],
      PROFILE,
      parseShopperQuery('bag'),
    );
    expect(ranked[0].candidate.id).toBe('tote');
    expect(ranked[0].matchReasons).toContain('query: bag');
    const shoes = scoreCandidates(
      [
        candidate('boots', {
          title: 'Chelsea Boots',
          category: 'Shoes',
          categoryName: 'shoes',
          colourLab: CAMEL,
        }),
      ],
      PROFILE,
      parseShopperQuery('leather shoes'),
    );
    expect(shoes[0].matchReasons).toContain('query: shoes');
    // A garment of a category is not the category: a cardigan is knitwear, and no sweater.
    const knit = {
      category: 'Knitwear',
      categoryName: 'knitwear' as const,
      title: 'Camel Cardigan',
      colourLab: CAMEL,
    };
    expect(
      scoreCandidates([candidate('c', knit)], PROFILE, parseShopperQuery('sweater'))[0].matchReasons,
    ).not.toContain('query: sweater');
    expect(
      scoreCandidates([candidate('c', knit)], PROFILE, parseShopperQuery('knitwear'))[0].matchReasons,
    ).toContain('query: knitwear');
  });

  it('matches a fabric word against what the product is made of, not a colour named like a fabric', () => {
    const shirts = { category: 'Apparel > Shirts', categoryName: 'shirts' as const };
    const ranked = scoreCandidates(
      [
        // The feed writes the colour into the title: `Raw Linen` is an ecru, this shirt is cotton.
        candidate('raw-linen', {
          ...shirts,
          title: 'Raw Linen Oxford Shirt',
          colour: 'Raw Linen',
          material: 'Cotton Poplin',
          colourLab: CREAM,
        }),
        candidate('linen', {
          ...shirts,
          title: 'Navy Poplin Shirt',
          colour: 'Navy',
          material: 'Linen',
          colourLab: NAVY,
        }),
        candidate('titled', { ...shirts, title: 'Navy Linen Shirt', colour: 'Navy', colourLab: NAVY }),
      ],
      PROFILE,
      parseShopperQuery('linen shirt'),
    );
    expect(ranked.map((r) => [r.candidate.id, r.matchReasons.find((m) => m.startsWith('query:'))])).toEqual([
      ['linen', 'query: linen shirt'],
      ['titled', 'query: linen shirt'],
      ['raw-linen', 'query: shirt'],
    ]);
    expect([
      ...productFabric({ title: 'Oat Wool Coat', designer: 'D', material: null, colour: 'Oat' }),
    ]).toEqual(['wool', 'coat']);
  });

  it('lets a bare family word match its whole family: pink is dusty pink too, a shade stays a shade', () => {
    const dustyPink = parseShopperQuery('dusty pink');
    expect(dustyPink.colours[0].family).toBeUndefined();
    const pink = parseShopperQuery('pink');
    expect(pink.colours[0].family).toBe('pink');
    const candidates = [
      candidate('grey', { title: 'Grey Jumper', colourLab: { l: 0.6, a: 0, b: 0 }, colourFamily: 'neutral' }),
      candidate('dusty', {
        title: 'Dusty Pink Jumper',
        colourLab: dustyPink.colours[0].oklab,
        colourFamily: 'pink',
      }),
    ];
    const ranked = scoreCandidates(candidates, PROFILE, pink);
    expect(ranked.map((r) => [r.candidate.id, r.score >= 0.5, r.matchReasons.at(-1)])).toEqual([
      ['dusty', true, 'query: pink'],
      ['grey', false, undefined],
    ]);
    // A shade answers by closeness: dusty pink is not `hot pink`.
    const hot = scoreCandidates(candidates, PROFILE, parseShopperQuery('hot pink'));
    expect(hot.every((r) => r.score < 0.5)).toBe(true);
  });

  it('matches a trenchcoat and a trench coat alike, whichever way the query spells it', () => {
    for (const text of ['trenchcoat', 'trench coat']) {
      const ranked = scoreCandidates(
        [
          candidate('jacket', { title: 'Camel bomber jacket', colourLab: CAMEL }),
          candidate('one-word', { title: 'Camel Trenchcoat', colourLab: CAMEL }),
          candidate('two-words', { title: 'Camel Trench Coat', colourLab: CAMEL }),
        ],
        PROFILE,
        parseShopperQuery(text),
      );
      expect(ranked.map((r) => [r.candidate.id, r.matchReasons.find((m) => m.startsWith('query:'))])).toEqual(
        [
          ['one-word', 'query: trench coat'],
          ['two-words', 'query: trench coat'],
          ['jacket', undefined],
        ],
      );
    }
  });

  it("lets the query's colour words steer colour: camel coat puts camel coats first, a dress never first", () => {
    const navyProfile: RankingProfile = { ...PROFILE, palette: [{ name: 'navy', oklab: NAVY, share: 1 }] };
    const ranked = scoreCandidates(
      [
        candidate('navy-coat', { title: 'Navy peacoat', colourLab: NAVY, colour: 'Navy' }),
        candidate('camel-dress', { title: 'Camel dress', categoryName: 'dresses', colourLab: CAMEL }),
        candidate('camel-coat', { title: 'Camel wool coat', colourLab: CAMEL, colour: 'Camel' }),
        candidate('camel-jacket', { title: 'Camel bomber jacket', colourLab: CAMEL, colour: 'Camel' }),
      ],
      navyProfile,
      parseShopperQuery('camel coat'),
    );
    expect(ranked.map((r) => r.candidate.id)).toEqual([
      'camel-coat',
      'camel-jacket',
      'navy-coat',
      'camel-dress',
    ]);
    expect(ranked[0].matchReasons).toEqual(expect.arrayContaining(['colour: camel', 'query: camel coat']));
    expect(ranked[2].matchReasons.some((m) => m.startsWith('colour:'))).toBe(false);
  });

  it('ranks down what the profile avoids: a scarlet polka-dot coat for a profile that avoids brights', () => {
    const profile: RankingProfile = {
      ...PROFILE,
      avoid: parseAvoids('A warm, light palette built on camel. Avoids saturated brights and busy prints.'),
    };
    const scarlet = { l: 0.6, a: 0.2, b: 0.12 };
    const ranked = scoreCandidates(
      [
        candidate('scarlet', { title: 'Scarlet polka dot coat', colourLab: scarlet, colour: 'Scarlet' }),
        candidate('taupe', { title: 'Taupe coat', colourLab: { l: 0.6, a: 0.01, b: 0.02 }, colour: 'Taupe' }),
      ],
      profile,
      parseShopperQuery('coat'),
    );
    expect(ranked.map((r) => r.candidate.id)).toEqual(['taupe', 'scarlet']);
    const plain = scoreCandidates(
      [candidate('scarlet', { title: 'Scarlet polka dot coat', colourLab: scarlet, colour: 'Scarlet' })],
      PROFILE,
      parseShopperQuery('coat'),
    );
    expect(ranked[1].score).toBeLessThan(plain[0].score);
  });

  // `bright red dress` for a camel core that avoids brights returned burgundy; `floral dress` for one
  // that avoids busy prints returned solid black dresses.
  it('lets the query ask for what the profile avoids: its colour, print, stripe or check', () => {
    const avoid = parseAvoids('Camel and cream. Avoids saturated brights, black and busy prints.');
    expect(avoidFor(avoid, parseShopperQuery('bright red dress'))).toMatchObject({
      brights: false,
      colours: [],
    });
    expect(avoidFor(avoid, parseShopperQuery('black jeans')).colours).toEqual([]);
    expect(avoidFor(avoid, parseShopperQuery('floral dress'))).toMatchObject({
      prints: false,
      brights: true,
    });
    expect(avoidFor(avoid, parseShopperQuery('coat'))).toEqual(avoid);
    const profile: RankingProfile = { ...PROFILE, avoid };
    const scarlet = { l: 0.6, a: 0.2, b: 0.12 };
    const ranked = scoreCandidates(
      [
        candidate('red', {
          title: 'Red dress',
          category: 'Dresses',
          categoryName: 'dresses',
          colourLab: scarlet,
          colour: 'Red',
        }),
        candidate('wine', {
          title: 'Wine dress',
          category: 'Dresses',
          categoryName: 'dresses',
          colourLab: { l: 0.4, a: 0.12, b: 0.03 },
          colour: 'Wine',
        }),
      ],
      profile,
      parseShopperQuery('red dress'),
    );
    expect(ranked.map((r) => r.candidate.id)).toEqual(['red', 'wine']);
  });

  // `dark green coat` returned `Dark Grey` coats first: the shared word `dark` counted as the name.
  it("counts a product's colour as named like the target only by a colour word, not a shade word", () => {
    const lab = { l: 0.4, a: -0.03, b: 0.01 };
    const ranked = scoreCandidates(
      [
        candidate('a-grey', { colour: 'Dark Grey', colourLab: lab }),
        candidate('b-green', { colour: 'Forest Green', colourLab: lab }),
      ],
      PROFILE,
      parseShopperQuery('dark green coat'),
    );
    expect(ranked.map((r) => r.candidate.id)).toEqual(['b-green', 'a-grey']);
    expect(ranked[0].score).toBeGreaterThan(ranked[1].score);
  });

  // A 5% orange accent's tag put `Black/Burnt Orange` loafers first for a black core (`tag: orange`).
  it("matches the profile's attributes against the product's words without its colour field", () => {
    const black = { l: 0.2, a: 0, b: 0 };
    const profile: RankingProfile = {
      ...PROFILE,
      tags: ['orange', 'dark'],
      palette: [{ name: 'black', oklab: black, share: 1 }],
    };
    const ranked = scoreCandidates(
      [
        candidate('b-accent', { title: 'Loafers', colour: 'Black/Burnt Orange', colourLab: black }),
        candidate('a-plain', { title: 'Loafers', colour: 'Black', colourLab: black }),
      ],
      profile,
      null,
    );
    expect(ranked.map((r) => r.candidate.id)).toEqual(['a-plain', 'b-accent']);
    expect(ranked[1].matchReasons).not.toContain('tag: orange');
    // A tag in the product's own words still counts (`orange` in a title is what the product is).
    const titled = scoreCandidates([candidate('t', { title: 'Orange loafers' })], profile, null);
    expect(titled[0].matchReasons).toContain('tag: orange');
  });

  // eval:search seed 48: a stone core (a grey in its palette, tags `stone` and `grey`) ranked a taupe
  // `Fawn Grey, Stone` jumper among stone products on `tag: stone` and `tag: grey`, read off its title.
  it("matches a colour tag against the product's dominant colour, not a second colour the title repeats", () => {
    const profile: RankingProfile = {
      ...PROFILE,
      tags: ['stone', 'grey', 'soft'],
      styleAttributes: [],
      patterns: [],
      palette: [
        { name: 'stone', oklab: swatch('stone'), share: 0.8 },
        { name: 'grey', oklab: { l: 0.66, a: 0.004, b: 0.012 }, share: 0.13 },
      ],
    };
    const ranked = scoreCandidates(
      [
        candidate('a-taupe', {
          title: 'Fawn Grey, Stone Roll Neck Jumper',
          colour: 'Fawn Grey, Stone',
          colourLab: colourFeatures('Fawn Grey, Stone')!,
        }),
        candidate('b-stone', {
          title: 'Soft Stone Jumper',
          colour: 'Soft Stone',
          colourLab: swatch('stone'),
        }),
        candidate('c-stone', { title: 'Jumper', colour: 'Stone/Navy', colourLab: swatch('stone') }),
      ],
      profile,
      null,
    );
    expect(ranked.map((r) => r.candidate.id)).toEqual(['b-stone', 'c-stone', 'a-taupe']);
    const reasons = Object.fromEntries(ranked.map((r) => [r.candidate.id, r.matchReasons]));
    // Its first colour is a grey; the stone is its second.
    expect(reasons['a-taupe']).toContain('tag: grey');
    expect(reasons['a-taupe']).not.toContain('tag: stone');
    // `Soft` is the colourway's word (`Soft Stone`), not the garment's.
    expect(reasons['b-stone']).toEqual(['colour: soft stone', 'tag: stone']);
    // The first colour meets the tag whether the title names it or not.
    expect(reasons['c-stone']).toContain('tag: stone');
    // The title's own words still count: a soft jumper in stone is soft.
    const soft = scoreCandidates(
      [candidate('s', { title: 'Soft Jumper', colour: 'Stone', colourLab: swatch('stone') })],
      profile,
      null,
    );
    expect(soft[0].matchReasons).toEqual(['colour: stone', 'tag: stone', 'tag: soft']);
    // A fabric some colour lists name is no colour tag: a `Raw Linen` shirt in cotton is not linen.
    const fabrics = scoreCandidates(
      [
        candidate('r', { title: 'Raw Linen Shirt', colour: 'Raw Linen', material: 'Cotton' }),
        candidate('l', { title: 'Shirt', colour: 'Ecru', material: 'Linen' }),
      ],
      { ...profile, tags: ['linen'] },
      null,
    );
    const fabricReasons = Object.fromEntries(fabrics.map((r) => [r.candidate.id, r.matchReasons]));
    expect(fabricReasons.r).toEqual([]);
    expect(fabricReasons.l).toEqual(['tag: linen', 'material: linen']);
  });

  // The generator's `Shoes > Boots & Sneakers` made ballet flats match `sneakers`, and say so.
  it("matches a query word against a category path's one-kind segments, not a group like `Boots & Sneakers`", () => {
    expect(describingPath('Apparel & Accessories > Shoes > Boots & Sneakers')).toBe(' Shoes ');
    expect(describingPath('Apparel > Outerwear > Coats')).toBe('Apparel > Outerwear > Coats');
    const shoes = {
      category: 'Apparel & Accessories > Shoes > Boots & Sneakers',
      categoryName: 'shoes' as const,
    };
    const ranked = scoreCandidates(
      [
        candidate('flats', { ...shoes, title: 'Tan Suede Ballet Flats' }),
        candidate('sneakers', { ...shoes, title: 'Tan Leather Sneakers' }),
      ],
      PROFILE,
      parseShopperQuery('sneakers'),
    );
    expect(ranked.map((r) => r.candidate.id)).toEqual(['sneakers', 'flats']);
    expect(ranked[1].matchReasons).not.toContain('query: sneakers');
  });

  it('reads a product again when its fields change (the words remembered across searches follow the row)', () => {
    const wool = scoreCandidates(
      [candidate('cache-1', { title: 'Wool coat' })],
      PROFILE,
      parseShopperQuery('wool'),
    );
    expect(wool[0].matchReasons).toContain('query: wool');
    const silk = scoreCandidates(
      [candidate('cache-1', { title: 'Silk coat' })],
      PROFILE,
      parseShopperQuery('wool'),
    );
    expect(silk[0].matchReasons).not.toContain('query: wool');
    expect(silk[0].score).toBeLessThan(wool[0].score);
    const striped = scoreCandidates(
      [candidate('cache-1', { title: 'Silk coat', pattern: 'Striped' })],
      PROFILE,
      parseShopperQuery('striped'),
    );
    expect(striped[0].matchReasons).toContain('query: striped');
  });

  // `stripes` and `stripe` returned only solids while the feed says `Striped`; `check coat` a solid coat.
  it('meets a word in any of its forms: stripes and Striped, check and Checked, knitted and Knit', () => {
    const pairs: [string, RankingCandidate][] = [
      ['stripes', candidate('s', { title: 'Silk shirt', pattern: 'Striped' })],
      ['stripe', candidate('s', { title: 'Silk shirt', pattern: 'Striped' })],
      ['check coat', candidate('c', { title: 'Wool coat', pattern: 'Checked' })],
      [
        'knitted dress',
        candidate('k', { title: 'Knit Dress', category: 'Dresses', categoryName: 'dresses' }),
      ],
    ];
    for (const [query, product] of pairs) {
      const [ranked] = scoreCandidates([product], PROFILE, parseShopperQuery(query));
      expect({ query, reasons: ranked.matchReasons.filter((r) => r.startsWith('query:')) }).toEqual({
        query,
        reasons: [`query: ${parseShopperQuery(query).terms.join(' ')}`],
      });
    }
  });

  it('matches multi-word attributes only when every word is present', () => {
    // A product's words are compared stemmed, as productWords() gives them.
    const both = productWords(candidate('t', { title: 'Relaxed tailoring coat' }));
    const one = productWords(candidate('r', { title: 'Relaxed coat' }));
    expect(phraseMatches('relaxed tailoring', both)).toBe(true);
    expect(phraseMatches('relaxed tailoring', one)).toBe(false);
  });
});

describe('colourWalks', () => {
  it('shares the budget by share, with a floor for minor colours', () => {
    const walks = colourWalks([
      { oklab: CAMEL, share: 0.8 },
      { oklab: CREAM, share: 0.15 },
      { oklab: NAVY, share: 0.05 },
    ]);
    expect(walks[0].take).toBeGreaterThan(walks[1].take);
    expect(walks[2].take).toBeGreaterThanOrEqual(40);
    expect(walks.reduce((s, w) => s + w.take, 0)).toBeLessThanOrEqual(340);
  });
});

describe('diversify', () => {
  const items = [
    { id: 1, d: 'A', c: 'x' },
    { id: 2, d: 'A', c: 'y' },
    { id: 3, d: 'A', c: 'z' },
    { id: 4, d: 'A', c: 'w' },
    { id: 5, d: 'B', c: 'x' },
    { id: 6, d: 'C', c: 'x' },
    { id: 7, d: 'D', c: 'x' },
    { id: 8, d: 'E', c: 'v' },
  ];
  const groups = [(i: (typeof items)[number]) => i.d, (i: (typeof items)[number]) => i.c];

  it('keeps at most 3 per designer and per category, in rank order', () => {
    expect(diversify(items, groups, 5, 3).map((i) => i.id)).toEqual([1, 2, 3, 5, 6]);
  });

  it('fills with skipped items so the result has min(limit, n) items, kept in rank order', () => {
    // 4 and 7 are skipped by the caps, then fill the last two places: each in its rank, not after 8.
    expect(diversify(items, groups, 8, 3).map((i) => i.id)).toEqual([1, 2, 3, 4, 5, 6, 7, 8]);
    expect(diversify(items, groups, 7, 3).map((i) => i.id)).toEqual([1, 2, 3, 4, 5, 6, 8]);
    expect(diversify(items.slice(0, 2), groups, 10, 3)).toHaveLength(2);
  });
});
