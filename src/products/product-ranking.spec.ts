import {
  buildOrTsQuery,
  colourSimilarity,
  diversify,
  phraseMatches,
  RankingCandidate,
  RankingProfile,
  scoreCandidates,
  tokenize,
} from './product-ranking';
import { gendersFor } from './products.service';

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
  colourTerms: ['camel', 'cream', 'brown'],
};

function candidate(id: string, patch: Partial<RankingCandidate> = {}): RankingCandidate {
  return {
    id,
    title: 'Coat',
    designer: 'D',
    description: '',
    category: 'Outerwear',
    material: null,
    pattern: null,
    colour: null,
    colourFamily: null,
    colourLab: null,
    textRank: 0.1,
    queryMatch: false,
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
        candidate('navy', { colourLab: NAVY, colour: 'Navy', textRank: 0.5 }),
        candidate('camel', {
          colourLab: CAMEL,
          colour: 'Camel',
          material: 'wool',
          description: 'A minimalist coat',
          textRank: 0.3,
        }),
        candidate('cream', { colourLab: CREAM, colour: 'Cream', textRank: 0.3 }),
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

  it('prefers query matches and names the matched words', () => {
    const ranked = scoreCandidates(
      [
        candidate('plain', { colourLab: CAMEL, colour: 'Camel', textRank: 0.4 }),
        candidate('coat', {
          title: 'Camel coat',
          queryMatch: true,
          colourLab: CAMEL,
          colour: 'Camel',
          textRank: 0.4,
        }),
      ],
      PROFILE,
      'coats',
    );
    expect(ranked[0].candidate.id).toBe('coat');
    expect(ranked[0].matchReasons).toContain('query: coats');
  });

  it('ranks every query match above every non-match, even a non-match in the perfect colour', () => {
    const ranked = scoreCandidates(
      [
        candidate('perfect-colour', { colourLab: CAMEL, colour: 'Camel', textRank: 0.9 }),
        candidate('plain-coat', { title: 'Grey coat', queryMatch: true, textRank: 0.05 }),
      ],
      PROFILE,
      'coat',
    );
    expect(ranked.map((r) => r.candidate.id)).toEqual(['plain-coat', 'perfect-colour']);
    expect(ranked[0].score).toBeGreaterThanOrEqual(0.5);
    expect(ranked[1].score).toBeLessThan(0.5);
  });

  it('matches multi-word attributes only when every word is present', () => {
    expect(phraseMatches('relaxed tailoring', new Set(['relaxed', 'tailoring']))).toBe(true);
    expect(phraseMatches('relaxed tailoring', new Set(['relaxed']))).toBe(false);
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

  it('fills with skipped items so the result has min(limit, n) items', () => {
    expect(diversify(items, groups, 8, 3).map((i) => i.id)).toEqual([1, 2, 3, 5, 6, 8, 4, 7]);
    expect(diversify(items.slice(0, 2), groups, 10, 3)).toHaveLength(2);
  });
});
