/**
 * Search quality on the demo catalogue (`npm run eval:search`): cores with a known colour / pattern
 * truth, with and without a query; prints precision@10 and nDCG@10 per scenario.
 *
 * Relevance is judged from product attributes only: the product's colour is a palette colour (or within
 * OKLab 0.1 of one, or of the same non-neutral family); with a query, the category or title must also
 * match the query; with a pattern, the product must carry it.
 */
import { CoreSearchProfile } from '../src/cores/cores.service';
import { ProductDto } from '../src/products/dto/product.dto';
import { colourFeatures } from '../src/products/product-colour';
import { oklabDistance } from '../src/products/product-ranking';
import { TasteService } from '../src/taste/taste.service';
import { garmentPng, GarmentSpec } from '../test/support/garments';
import { demoRows, freshDatabase, profileFrom, services } from './support';

/** A core profile the way production makes it: generated garment images through the local engine. */
async function coreFromImages(name: string, specs: GarmentSpec[]): Promise<CoreSearchProfile> {
  const engine = new TasteService({ get: () => ({ provider: 'local' }) } as never);
  const images = await Promise.all(
    specs.map(async (spec) => ({ data: await garmentPng(spec), contentType: 'image/png' })),
  );
  const r = await engine.generate(images);
  return {
    id: name,
    name,
    taste: r.taste,
    styleAttributes: r.styleAttributes,
    tags: r.tags,
    palette: r.palette,
    patterns: r.patterns,
  };
}

interface Scenario {
  name: string;
  profile: CoreSearchProfile;
  query?: string;
  /** Relevance of one product, given its catalogue row. */
  relevant: (p: Row) => boolean;
  colourDriven: boolean;
}

interface Row {
  colour: string | null;
  pattern: string | null;
  category: string | null;
  title: string;
}

function colourMatch(profile: CoreSearchProfile): (p: Row) => boolean {
  return (p) => {
    const c = colourFeatures(p.colour);
    if (!c) return false;
    return profile.palette.some((pc) => {
      const pf = colourFeatures(pc.name);
      return (
        pc.name === c.name ||
        oklabDistance(c, pc.oklab) < 0.1 ||
        (pf !== null && pf.family === c.family && pf.family !== 'neutral' && pf.family !== 'metallic')
      );
    });
  };
}

function ndcg(rels: boolean[], idealRelevant: number): number {
  const dcg = rels.reduce((s, r, i) => s + (r ? 1 / Math.log2(i + 2) : 0), 0);
  let idcg = 0;
  for (let i = 0; i < Math.min(10, idealRelevant); i += 1) idcg += 1 / Math.log2(i + 2);
  return idcg === 0 ? 0 : dcg / idcg;
}

async function main(): Promise<void> {
  const count = Number(process.argv[process.argv.indexOf('--products') + 1]) || 3000;
  const ds = await freshDatabase(process.env.EVAL_DB_NAME ?? 'taste_eval');
  try {
    const { importer, products } = services(ds);
    await importer.importRows(demoRows(count));
    const rows: (Row & { external_id: string })[] = await ds.query(
      `SELECT external_id, colour, pattern, category, title FROM products`,
    );
    const byId = new Map(rows.map((r) => [r.external_id, r]));

    const camel = profileFrom('camel & cream', [
      ['camel', 0.6],
      ['cream', 0.4],
    ]);
    const navy = profileFrom('navy & white', [
      ['navy', 0.7],
      ['white', 0.3],
    ]);
    const green = profileFrom('olive & sage', [
      ['olive', 0.5],
      ['sage', 0.3],
      ['khaki', 0.2],
    ]);
    const red = profileFrom('burgundy & wine', [
      ['burgundy', 0.6],
      ['wine', 0.4],
    ]);
    const pink = profileFrom('blush & pink', [
      ['blush', 0.5],
      ['pink', 0.5],
    ]);
    const striped = profileFrom('navy stripes', [['navy', 1]], { patterns: ['striped'] });
    const minimal = profileFrom(
      'minimalist black',
      [
        ['black', 0.7],
        ['charcoal', 0.3],
      ],
      { styleAttributes: ['minimalist', 'tailored'], tags: ['wool'] },
    );
    const categoryMatch =
      (words: RegExp) =>
      (p: Row): boolean =>
        words.test(`${p.category ?? ''} ${p.title}`.toLowerCase());
    const both =
      (...fs: ((p: Row) => boolean)[]) =>
      (p: Row): boolean =>
        fs.every((f) => f(p));

    // Cores built from images of known colour and pattern; relevance is judged against the truth
    // (the hand-made profiles above), never against what the engine measured.
    const camelCore = await coreFromImages('camel & cream (images)', [
      { colour: '#c19a6b' },
      { colour: '#efe3c8', background: '#c8c8c8' },
      { colour: '#c19a6b', background: 'busy', seed: 3 },
    ]);
    const navyCore = await coreFromImages('navy & white stripes (images)', [
      { colour: '#1c2541', pattern: 'striped' },
      { colour: '#1c2541', pattern: 'striped', horizontal: true, stripeWidth: 12 },
      { colour: '#f7f7f5', background: '#1c2541' },
    ]);
    const greenCore = await coreFromImages('olive & sage (images)', [
      { colour: '#6b6b2f' },
      { colour: '#9caf88', background: '#f3ecd8' },
    ]);
    const redCore = await coreFromImages('burgundy (images)', [
      { colour: '#6d1a2a' },
      { colour: '#6d1a2a', background: 'busy', seed: 5 },
    ]);
    const pinkCore = await coreFromImages('blush & pink (images)', [
      { colour: '#efc3c0', background: '#6f4a2f' },
      { colour: '#e48aa8' },
    ]);

    const scenarios: Scenario[] = [
      {
        name: 'camel+cream core from images',
        profile: camelCore,
        relevant: colourMatch(camel),
        colourDriven: true,
      },
      {
        name: 'navy+white stripes core from images',
        profile: navyCore,
        relevant: colourMatch(navy),
        colourDriven: true,
      },
      {
        name: 'olive+sage core from images',
        profile: greenCore,
        relevant: colourMatch(green),
        colourDriven: true,
      },
      { name: 'burgundy core from images', profile: redCore, relevant: colourMatch(red), colourDriven: true },
      {
        name: 'blush+pink core from images',
        profile: pinkCore,
        relevant: colourMatch(pink),
        colourDriven: true,
      },
      {
        name: 'camel+cream core from images, query "coat"',
        profile: camelCore,
        query: 'coat',
        relevant: both(colourMatch(camel), categoryMatch(/coat|outerwear/)),
        colourDriven: false,
      },
      { name: 'camel+cream', profile: camel, relevant: colourMatch(camel), colourDriven: true },
      { name: 'navy+white', profile: navy, relevant: colourMatch(navy), colourDriven: true },
      { name: 'olive+sage+khaki', profile: green, relevant: colourMatch(green), colourDriven: true },
      { name: 'burgundy+wine', profile: red, relevant: colourMatch(red), colourDriven: true },
      { name: 'blush+pink', profile: pink, relevant: colourMatch(pink), colourDriven: true },
      { name: 'black minimalist wool', profile: minimal, relevant: colourMatch(minimal), colourDriven: true },
      {
        name: 'navy striped (colour+pattern)',
        profile: striped,
        relevant: both(colourMatch(striped), (p) => p.pattern === 'striped'),
        colourDriven: false,
      },
      {
        name: 'camel+cream, query "coat"',
        profile: camel,
        query: 'coat',
        relevant: both(colourMatch(camel), categoryMatch(/coat|outerwear/)),
        colourDriven: false,
      },
      {
        name: 'navy+white, query "knitwear"',
        profile: navy,
        query: 'knitwear',
        relevant: both(colourMatch(navy), categoryMatch(/knit|sweater|cardigan|jumper|turtleneck/)),
        colourDriven: false,
      },
      {
        name: 'burgundy, query "leather bag"',
        profile: red,
        query: 'leather bag',
        relevant: both(colourMatch(red), categoryMatch(/bag|clutch/)),
        colourDriven: false,
      },
      {
        name: 'camel+cream, query "carburettor" (falls back to profile)',
        profile: camel,
        query: 'carburettor',
        relevant: colourMatch(camel),
        colourDriven: true,
      },
    ];

    const results: { name: string; p10: number; ndcg10: number; n: number; colourDriven: boolean }[] = [];
    for (const s of scenarios) {
      const res = await products.searchWithProfile(s.profile, s.query ? { query: s.query } : {});
      const rels = res.products.map((p: ProductDto) => {
        const row = byId.get(p.id);
        return row ? s.relevant(row) : false;
      });
      const idealRelevant = rows.filter((r) => s.relevant(r)).length;
      const p10 = rels.filter(Boolean).length / 10;
      results.push({
        name: s.name,
        p10,
        ndcg10: ndcg(rels, idealRelevant),
        n: res.products.length,
        colourDriven: s.colourDriven,
      });
    }
    console.log(`search evaluation on ${count} demo products`);
    console.log('scenario'.padEnd(58), 'P@10'.padStart(6), 'nDCG@10'.padStart(8), 'results'.padStart(8));
    for (const r of results) {
      console.log(
        r.name.padEnd(58),
        r.p10.toFixed(2).padStart(6),
        r.ndcg10.toFixed(3).padStart(8),
        String(r.n).padStart(8),
      );
    }
    const colour = results.filter((r) => r.colourDriven);
    const mean = (xs: number[]): number => xs.reduce((a, b) => a + b, 0) / Math.max(1, xs.length);
    console.log(
      `mean colour-driven P@10 ${mean(colour.map((r) => r.p10)).toFixed(3)} (target >= 0.8), ` +
        `mean all P@10 ${mean(results.map((r) => r.p10)).toFixed(3)}, mean nDCG@10 ${mean(results.map((r) => r.ndcg10)).toFixed(3)}`,
    );
  } finally {
    await ds.destroy();
  }
}

main().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});
