import { Client } from 'pg';
import {
  anyCandidatesQuery,
  CandidateFilters,
  CandidatePlan,
  candidateQuery,
} from '../../src/products/products.repository';
import type { SqlQuery } from '../../src/database/sql';
import { expectSqlSnapshot, SqlEntry } from './sql-snapshot';

const CAMEL = { l: 0.68, a: 0.03, b: 0.08 };
const NAVY = { l: 0.3, a: -0.01, b: -0.1 };
const CREAM = { l: 0.95, a: 0, b: 0.04 };
const NONE: CandidateFilters = { genders: null, minPrice: null, maxPrice: null };
const ALL_FILTERS: CandidateFilters = {
  genders: ['women', 'unisex'],
  minPrice: 50,
  maxPrice: 300,
  excludeExternalIds: ['SKU-1', 'SKU-2'],
  categoryKey: 3,
};

/** The request shapes of a search (products.service.ts): each one's candidate statement. */
const PLANS: [string, CandidatePlan][] = [
  [
    'profile only: three palette colours, no filters',
    {
      ...NONE,
      walks: [
        { colour: CAMEL, take: 120 },
        { colour: NAVY, take: 80 },
        { colour: CREAM, take: 40 },
      ],
      text: null,
    },
  ],
  [
    'a query naming a category (`coat`)',
    { ...NONE, categoryKey: 3, walks: [{ colour: CAMEL, take: 240 }], text: null },
  ],
  [
    'every filter, one walk and the text branch',
    {
      ...ALL_FILTERS,
      walks: [{ colour: CAMEL, take: 240 }],
      text: { tsquery: 'wool | stripe', near: CAMEL, take: 120 },
    },
  ],
  [
    'the text branch alone, no colour to be near',
    { ...NONE, walks: [], text: { tsquery: 'wool', near: null, take: 120 } },
  ],
];

function entry(name: string, query: SqlQuery): SqlEntry {
  return { name, statements: [query.text], values: query.values };
}

describe('SQL of ProductsRepository (test/sql/products.repository.sql)', () => {
  const queries: SqlEntry[] = [
    ...PLANS.map(([name, plan]) => entry(`findCandidates: ${name}`, candidateQuery(plan) as SqlQuery)),
    entry('findAnyCandidates: no filters', anyCandidatesQuery(NONE, 300)),
    entry('findAnyCandidates: every filter', anyCandidatesQuery(ALL_FILTERS, 300)),
  ];

  it('is the committed snapshot', () => {
    expectSqlSnapshot('products.repository.sql', 'ProductsRepository', queries);
  });

  it('reads nothing for a plan without walks or words', () => {
    expect(candidateQuery({ ...NONE, walks: [], text: { tsquery: '', near: null, take: 10 } })).toBeNull();
  });

  it('binds each value once however many branches repeat the filters', () => {
    const q = candidateQuery({
      ...ALL_FILTERS,
      walks: [
        { colour: CAMEL, take: 9 },
        { colour: NAVY, take: 9 },
      ],
      text: null,
    });
    expect(q?.values.filter((v) => v === 50)).toHaveLength(1);
    expect(q?.text.match(/s\.price >= \$\d+/g)).toEqual(['s.price >= $4', 's.price >= $4']);
  });

  it('plans on the real schema (every statement is valid SQL with these values)', async () => {
    const client = new Client({ connectionString: process.env.DATABASE_URL });
    await client.connect();
    try {
      for (const q of queries) await client.query(`EXPLAIN ${q.statements[0]}`, q.values);
    } finally {
      await client.end();
    }
  });
});
