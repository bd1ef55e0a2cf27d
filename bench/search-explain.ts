/**
 * `npm run bench:explain -- [--db taste_bench_search]`: prints `EXPLAIN (ANALYZE, BUFFERS)` of the search's
 * candidate statement (src/products/products.repository.ts candidateQuery) for the request shapes of the
 * search benchmark, then of the fallback read (anyCandidatesQuery: the first products by public id that
 * pass the filters, ADR 0048), against a database the benchmark (or eval) left behind. A diagnostic for
 * docs/decisions/0028, not a benchmark: it imports the statement builder from src/ so that what it
 * explains is exactly what the service runs. Each statement runs once unmeasured first (warm cache).
 */
import { Client } from 'pg';
import { colourFeatures } from '../src/products/product-colour';
import {
  anyCandidatesQuery,
  candidateQuery,
  type CandidateFilters,
  type CandidatePlan,
} from '../src/products/products.repository';
import { colourWalks, FALLBACK_LIMIT } from '../src/products/search-plan';
import { categoryId } from '../src/products/search-features';
import { argValue, databaseUrl } from './service';

function lab(name: string) {
  const f = colourFeatures(name);
  if (!f) throw new Error(`no colour ${name}`);
  return { l: f.l, a: f.a, b: f.b };
}

const palette = colourWalks([
  { oklab: lab('camel'), share: 0.6 },
  { oklab: lab('cream'), share: 0.3 },
  { oklab: lab('navy'), share: 0.1 },
]);
const none = { genders: null, minPrice: null, maxPrice: null };
const PLANS: [string, CandidatePlan][] = [
  ['{} (profile: three palette colours)', { ...none, walks: palette, text: null }],
  [
    '{query: "coat"} (category outerwear, palette colours)',
    { ...none, categoryKey: categoryId('outerwear'), walks: palette, text: null },
  ],
  [
    '{gender: "women", minPrice: 50, maxPrice: 300}',
    { genders: ['women', 'unisex'], minPrice: 50, maxPrice: 300, walks: palette, text: null },
  ],
  [
    '{query: "wool", gender: "women", minPrice: 50, maxPrice: 300} (text branch)',
    {
      genders: ['women', 'unisex'],
      minPrice: 50,
      maxPrice: 300,
      walks: palette,
      text: { tsquery: 'wool', near: lab('camel'), take: 120 },
    },
  ],
  [
    '{query: "camel coat"} (query colour, category outerwear)',
    {
      ...none,
      categoryKey: categoryId('outerwear'),
      walks: colourWalks([{ oklab: lab('camel'), share: 1 }]),
      text: null,
    },
  ],
  [
    '{query: "wool coat"}, its narrow read (made only when the walk holds fewer than ten wool coats: ADR 0058)',
    {
      ...none,
      categoryKey: categoryId('outerwear'),
      walks: [],
      text: { tsquery: 'coat & wool', near: lab('camel'), take: 120 },
    },
  ],
  [
    '{query: "suede loafers"}, its narrow read (ADR 0058)',
    {
      ...none,
      categoryKey: categoryId('shoes'),
      walks: [],
      text: { tsquery: 'loafers & suede', near: lab('camel'), take: 120 },
    },
  ],
];

/** The fallback read's filter shapes (the same request bodies, colour aside). */
const FALLBACKS: [string, CandidateFilters][] = [
  ['{}', none],
  ['{query: "coat"} (category outerwear)', { ...none, categoryKey: categoryId('outerwear') }],
  [
    '{gender: "women", minPrice: 50, maxPrice: 300}',
    { genders: ['women', 'unisex'], minPrice: 50, maxPrice: 300 },
  ],
];

async function explain(client: Client, name: string, q: { text: string; values: unknown[] }): Promise<void> {
  await client.query(q.text, q.values);
  const rows = (await client.query(`EXPLAIN (ANALYZE, BUFFERS) ${q.text}`, q.values)).rows as {
    'QUERY PLAN': string;
  }[];
  console.log(`### ${name}\n\n\`\`\`\n${rows.map((r) => r['QUERY PLAN']).join('\n')}\n\`\`\`\n`);
}

async function main(): Promise<void> {
  const db = argValue('--db') ?? process.env.BENCH_DB_NAME ?? 'taste_bench_run';
  const client = new Client({ connectionString: databaseUrl(db) });
  await client.connect();
  try {
    const [{ n }] = (await client.query('SELECT count(*)::int AS n FROM products')).rows as { n: number }[];
    console.log(`database ${db}: ${n} products\n`);
    for (const [name, plan] of PLANS) {
      const q = candidateQuery(plan);
      if (q) await explain(client, name, q);
    }
    for (const [name, filters] of FALLBACKS) {
      await explain(client, `fallback read, ${name}`, anyCandidatesQuery(filters, FALLBACK_LIMIT));
    }
  } finally {
    await client.end();
  }
}

main().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});
