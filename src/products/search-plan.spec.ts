import type { CoreSearchProfile } from '../cores/cores.service';
import type { CandidateRow } from './products.repository';
import { categoryId } from './search-features';
import {
  candidateReads,
  mergeCandidates,
  planSearch,
  rankAndPick,
  readNeeded,
  SEARCH_LIMIT,
  searchResponse,
  variantKey,
  WALK_BUDGET,
} from './search-plan';

const CAMEL = { l: 0.68, a: 0.03, b: 0.08 };
const CREAM = { l: 0.95, a: 0.0, b: 0.04 };
const NAVY = { l: 0.3, a: -0.01, b: -0.1 };
const SAGE = { l: 0.7, a: -0.04, b: 0.04 };

const PROFILE: CoreSearchProfile = {
  id: 'core-1',
  name: 'Camel edit',
  taste: 'Minimalist camel and cream wardrobe.',
  styleAttributes: ['minimalist'],
  tags: ['wool'],
  patterns: [],
  palette: [
    { name: 'cream', hex: '#f3ead8', oklab: CREAM, share: 0.2 },
    { name: 'camel', hex: '#c19a6b', oklab: CAMEL, share: 0.5 },
    { name: 'sage', hex: '#9caf88', oklab: SAGE, share: 0.05 },
    { name: 'navy', hex: '#1f2a44', oklab: NAVY, share: 0.25 },
  ],
};

function row(id: string, patch: Partial<CandidateRow> = {}): CandidateRow {
  return {
    id,
    externalId: `SKU-${id}`,
    title: 'Wool coat',
    designer: `Designer ${id}`,
    price: '120.00',
    currency: 'USD',
    url: `https://shop.example/${id}`,
    mediaUrl: `https://shop.example/${id}.jpg`,
    mediaUrlAlt: null,
    gender: 'women',
    colour: 'Camel',
    material: 'Wool',
    pattern: null,
    category: 'Outerwear > Coats',
    categoryKey: categoryId('outerwear'),
    colourL: CAMEL.l,
    colourA: CAMEL.a,
    colourB: CAMEL.b,
    colourFamily: 'camel',
    ...patch,
  };
}

describe('search plan', () => {
  describe('planSearch', () => {
    it('walks the three largest palette colours, sharing the budget, with no query', () => {
      const plan = planSearch(PROFILE, { gender: 'women', minPrice: 50, excludeIds: [] });
      expect(plan.walks.map((w) => w.colour)).toEqual([CAMEL, NAVY, CREAM]);
      expect(plan.walks.reduce((s, w) => s + w.take, 0)).toBeGreaterThanOrEqual(WALK_BUDGET);
      expect(plan.filters).toEqual({
        genders: ['women', 'unisex'],
        minPrice: 50,
        maxPrice: null,
        excludeExternalIds: null,
        categoryKey: null,
      });
      expect(plan.text).toBeNull();
    });

    it("walks the query's colour in the query's category, without the text branch", () => {
      const plan = planSearch(PROFILE, { query: 'navy coat', excludeIds: ['A'] });
      expect(plan.walks).toEqual([{ colour: plan.query.colours[0].oklab, take: WALK_BUDGET }]);
      expect(plan.filters.categoryKey).toBe(categoryId('outerwear'));
      expect(plan.filters.excludeExternalIds).toEqual(['A']);
      expect(plan.text).toBeNull();
    });

    // `black crossbody` read only black products, none of them crossbody bags (the word names no category).
    it('reads the features for a colour and a word naming the product, nearest the query colour', () => {
      const plan = planSearch(PROFILE, { query: 'navy crossbody' });
      expect(plan.text).toEqual({ tsquery: 'crossbody', near: plan.query.colours[0].oklab, take: 120 });
      // A material or pattern word is ranked among the colour's products, as before.
      expect(planSearch(PROFILE, { query: 'camel wool' }).text).toBeNull();
      expect(planSearch(PROFILE, { query: 'navy striped' }).text).toBeNull();
    });

    // `suede loafers`: about one shoe in eighty; the walk of the palette's shoes held too few to fill ten.
    it('plans a features read of a category garment and its other words, under any name of the garment', () => {
      const suede = planSearch(PROFILE, { query: 'suede loafers' });
      expect(suede.filters.categoryKey).toBe(categoryId('shoes'));
      expect(suede.text).toBeNull();
      expect(suede.narrow).toEqual({ tsquery: 'loafers & suede', near: CAMEL, take: 120 });
      const jumper = planSearch(PROFILE, { query: 'navy cashmere jumper' });
      expect(jumper.narrow).toEqual({
        tsquery: '(jumper | sweater | pullover) & cashmere',
        near: jumper.query.colours[0].oklab,
        take: 120,
      });
      // A garment word before the head is one of its words (`bomber` names outerwear too).
      expect(planSearch(PROFILE, { query: 'bomber jacket' }).narrow?.tsquery).toBe('jacket & bomber');
      // One garment of a category, with or without a colour: the garment under its names.
      expect(planSearch(PROFILE, { query: 'pink blouse' }).narrow?.tsquery).toBe('blouse');
      expect(planSearch(PROFILE, { query: 'jumper' }).narrow?.tsquery).toBe('(jumper | sweater | pullover)');
      // A whole category, or no category, has no narrow read.
      expect(planSearch(PROFILE, { query: 'shoes' }).narrow).toBeNull();
      expect(planSearch(PROFILE, { query: 'navy bags' }).narrow).toBeNull();
      expect(planSearch(PROFILE, { query: 'wool' }).narrow).toBeNull();
    });

    it("filters by the gender the query names unless the body's gender says otherwise", () => {
      expect(planSearch(PROFILE, { query: "men's shirt" }).filters.genders).toEqual(['men', 'unisex']);
      expect(planSearch(PROFILE, { query: "men's shirt", gender: 'women' }).filters.genders).toEqual([
        'women',
        'unisex',
      ]);
      expect(planSearch(PROFILE, { query: 'shirt' }).filters.genders).toBeNull();
    });

    it('reads the features for a query of other words alone, nearest the dominant colour', () => {
      const plan = planSearch(PROFILE, { query: 'striped wool' });
      expect(plan.text).toEqual({ tsquery: 'striped | wool', near: CAMEL, take: 120 });
      expect(plan.filters.categoryKey).toBeNull();
    });
  });

  describe('candidateReads', () => {
    it('falls back to any category, then to anything that passes the filters', () => {
      const plan = planSearch(PROFILE, { query: 'outerwear', maxPrice: 300 });
      const reads = candidateReads(plan);
      expect(reads.map((r) => r.kind)).toEqual(['plan', 'plan', 'any']);
      expect(reads[0]).toMatchObject({ plan: { categoryKey: categoryId('outerwear'), maxPrice: 300 } });
      expect(reads[1]).toMatchObject({ plan: { categoryKey: null, maxPrice: 300, walks: plan.walks } });
      expect(reads[2]).toEqual({ kind: 'any', filters: { ...plan.filters, categoryKey: null }, limit: 300 });
      // One garment of the category (`coat`) adds its narrow read after the walk, when that falls short.
      const coat = candidateReads(planSearch(PROFILE, { query: 'coat', maxPrice: 300 }));
      expect(coat.map((r) => [r.kind, r.needed !== undefined])).toEqual([
        ['plan', false],
        ['plan', true],
        ['plan', false],
        ['any', false],
      ]);
    });

    it('reads the narrow features only when fewer than SEARCH_LIMIT products in hand have every word', () => {
      const plan = planSearch(PROFILE, { query: 'suede loafers' });
      const reads = candidateReads(plan);
      expect(reads.map((r) => r.kind)).toEqual(['plan', 'plan', 'plan', 'any']);
      expect(reads[1]).toMatchObject({
        plan: { categoryKey: categoryId('shoes'), walks: [], text: plan.narrow },
      });
      const shoe = (id: string, title: string, material: string, size = '') =>
        row(id, { title: `${title}${size}`, material, category: 'Shoes', categoryKey: categoryId('shoes') });
      const suede = Array.from({ length: SEARCH_LIMIT }, (_, i) =>
        shoe(`s${i}`, `Suede Loafers ${i}`, 'Suede'),
      );
      const leather = Array.from({ length: 30 }, (_, i) => shoe(`l${i}`, `Loafers ${i}`, 'Leather'));
      const needed = reads[1].needed!;
      expect(needed([...leather, ...suede])).toBe(false);
      expect(needed([...leather, ...suede.slice(1)])).toBe(true);
      // Two sizes of one product are one product.
      const sizes = suede.slice(1).map((r) => ({ ...r, id: `${r.id}-m`, externalId: `${r.externalId}-m` }));
      expect(needed([...suede.slice(1), ...sizes])).toBe(true);
      // A query's colour is one of its parts: ten lilac blouses from a walk near pink are not ten pink ones.
      const pink = planSearch(PROFILE, { query: 'pink blouse' });
      const blouse = (id: string, colour: string, lab: { l: number; a: number; b: number }) =>
        row(id, {
          title: `${colour} Silk Blouse`,
          colour,
          colourL: lab.l,
          colourA: lab.a,
          colourB: lab.b,
          colourFamily: colour === 'Pink' ? 'pink' : 'purple',
          category: 'Shirts',
          categoryKey: categoryId('shirts'),
        });
      const pinkLab = pink.query.colours[0].oklab;
      const lilacLab = { l: 0.72, a: 0.06, b: -0.07 };
      const pinkNeeded = candidateReads(pink)[1].needed!;
      const ten = (colour: string, lab: typeof pinkLab) =>
        Array.from({ length: SEARCH_LIMIT }, (_, i) => blouse(`${colour}${i}`, colour, lab));
      expect(pinkNeeded(ten('Lilac', lilacLab))).toBe(true);
      expect(pinkNeeded(ten('Pink', pinkLab))).toBe(false);
      // Only the narrow read has its own condition; the others are made while fewer than SEARCH_LIMIT
      // candidates are in hand, the narrow one whenever too few of them answer the query.
      expect(reads.filter((r) => r.needed).length).toBe(1);
      const nine = suede.slice(1);
      expect(reads.map((r) => readNeeded(r, nine))).toEqual([true, true, true, true]);
      expect(reads.map((r) => readNeeded(r, [...leather, ...nine]))).toEqual([false, true, false, false]);
      expect(reads.map((r) => readNeeded(r, suede))).toEqual([false, false, false, false]);
    });

    it('has no category fallback when the query names no category', () => {
      expect(candidateReads(planSearch(PROFILE, {})).map((r) => r.kind)).toEqual(['plan', 'any']);
    });
  });

  it('mergeCandidates keeps each product once, in read order', () => {
    const merged = mergeCandidates([row('1'), row('2')], [row('2'), row('3'), row('3')]);
    expect(merged.map((r) => r.id)).toEqual(['1', '2', '3']);
  });

  describe('rankAndPick', () => {
    it('returns the top SEARCH_LIMIT, at most three per designer and category without a query', () => {
      const rows = Array.from({ length: 30 }, (_, i) =>
        row(String(i).padStart(2, '0'), { designer: i < 20 ? 'Same' : `D${i}` }),
      );
      const picked = rankAndPick(rows, planSearch(PROFILE, {}));
      expect(picked).toHaveLength(SEARCH_LIMIT);
      // Every row is an outerwear coat: the category cap fills from the skipped ones in rank order.
      expect(picked.slice(0, 3).map((p) => p.candidate.id)).toEqual(['SKU-00', 'SKU-01', 'SKU-02']);
    });

    it('answers best first when the designer cap leaves room that a capped product fills', () => {
      // Four camel coats of one designer (the cap keeps three) and one navy coat of another, scored lower.
      const camel = [1, 2, 3, 4].map((i) =>
        row(String(i), { designer: 'Same', categoryKey: null, category: `Line ${i}` }),
      );
      const navy = row('5', {
        designer: 'Other',
        categoryKey: null,
        category: 'Line 5',
        colour: 'Navy',
        colourFamily: 'navy',
        colourL: NAVY.l,
        colourA: NAVY.a,
        colourB: NAVY.b,
      });
      const picked = rankAndPick([...camel, navy], planSearch(PROFILE, {}));
      const scores = picked.map((p) => p.score);
      expect(scores[3]).toBeGreaterThan(scores[4]);
      // Before, the capped fourth camel coat came after the navy one.
      expect(picked.map((p) => p.candidate.id)).toEqual(['SKU-1', 'SKU-2', 'SKU-3', 'SKU-4', 'SKU-5']);
    });

    it('orders equal scores by the feed id, not by the random internal row id', () => {
      // The internal ids run the other way: the old tie-break (row id) answered SKU-3, SKU-2, SKU-1.
      const rows = ['c', 'b', 'a'].map((id, i) => row(id, { externalId: `SKU-${i + 1}`, designer: `D${i}` }));
      const plan = planSearch(PROFILE, {});
      const picked = rankAndPick([...rows].reverse(), plan);
      expect(new Set(picked.map((p) => p.score)).size).toBe(1);
      expect(picked.map((p) => p.candidate.row.externalId)).toEqual(['SKU-1', 'SKU-2', 'SKU-3']);
      expect(searchResponse('Camel edit', plan, picked).products.map((p) => p.id)).toEqual([
        'SKU-1',
        'SKU-2',
        'SKU-3',
      ]);
    });

    // A feed has a row per size: ten results held four to seven products.
    it('shows one size of a product while enough other products match, the others only as fills', () => {
      const sizes = ['S', 'M', 'L'].map((size, i) =>
        row(`size-${i}`, { externalId: `SKU-0${i}`, designer: 'Atelier', title: 'Atelier Camel Overcoat' }),
      );
      const others = Array.from({ length: 12 }, (_, i) =>
        row(`other-${i}`, {
          externalId: `SKU-1${String(i).padStart(2, '0')}`,
          title: `Coat ${i}`,
          colourL: CAMEL.l + 0.01,
        }),
      );
      const picked = rankAndPick([...sizes, ...others], planSearch(PROFILE, { query: 'coat' }));
      expect(picked).toHaveLength(SEARCH_LIMIT);
      expect(picked.filter((p) => p.candidate.row.title === 'Atelier Camel Overcoat')).toHaveLength(1);
      // Fewer than ten products: the other sizes fill the answer (min(10, matches) rows).
      const few = rankAndPick([...sizes, ...others.slice(0, 3)], planSearch(PROFILE, { query: 'coat' }));
      expect(few).toHaveLength(6);
      // Another colourway is another product.
      const navy = row('navy', { designer: 'Atelier', title: 'Atelier Camel Overcoat', colour: 'Navy' });
      expect(variantKey(navy)).not.toBe(variantKey(sizes[0]));
    });

    it('ranks a product matching the query above one that does not', () => {
      const rows = [row('1', { title: 'Wool scarf', categoryKey: null, category: null }), row('2')];
      const picked = rankAndPick(rows, planSearch(PROFILE, { query: 'coat' }));
      expect(picked.map((p) => p.candidate.id)).toEqual(['SKU-2', 'SKU-1']);
      expect(picked[0].score).toBeGreaterThan(0.5);
      expect(picked[1].score).toBeLessThanOrEqual(0.5);
    });
  });

  it('searchResponse answers with the feed ids, prices as numbers and the reasons', () => {
    const plan = planSearch(PROFILE, { query: 'coat' });
    const res = searchResponse('Camel edit', plan, rankAndPick([row('1')], plan));
    expect(res).toMatchObject({ status: 200, coreName: 'Camel edit', query: 'coat' });
    expect(res.products[0]).toMatchObject({ id: 'SKU-1', price: 120, currency: 'USD', mediaUrlAlt: null });
    expect(res.products[0].matchReasons).toContain('query: coat');
  });
});
