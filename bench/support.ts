/** Shared set-up of the search evaluation and benchmark: a fresh database and the real services. */
import { DataSource } from 'typeorm';
import type { CoreSearchProfile, CoresService } from '../src/cores/cores.service';
import { dataSourceOptions } from '../src/database/data-source';
import { CatalogueImportService, NumberedRow } from '../src/products/catalogue-import.service';
import { CatalogueWriter } from '../src/products/catalogue-writer';
import { demoProduct } from '../src/products/demo-catalogue';
import { vocabularyColours } from '../src/products/product-colour';
import { ProductsRepository } from '../src/products/products.repository';
import { ProductsService } from '../src/products/products.service';

export const ADMIN_URL = process.env.BENCH_PG_ADMIN_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';

/** Drops and re-creates `name`, runs the migrations, returns an open DataSource. */
export async function freshDatabase(name: string, poolSize = 10): Promise<DataSource> {
  const admin = new DataSource({ type: 'postgres', url: ADMIN_URL });
  await admin.initialize();
  await admin.query(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`);
  await admin.query(`CREATE DATABASE "${name}"`);
  await admin.destroy();
  const url = new URL(ADMIN_URL);
  url.pathname = `/${name}`;
  const ds = new DataSource({ ...dataSourceOptions(url.toString()), extra: { max: poolSize } });
  await ds.initialize();
  await ds.runMigrations({ transaction: 'each' });
  return ds;
}

export interface Services {
  importer: CatalogueImportService;
  products: ProductsService;
}

/** The real repository, importer and search service; the cores module is not needed here. */
export function services(ds: DataSource): Services {
  const repo = new ProductsRepository(ds);
  const noCores = {} as CoresService;
  return {
    importer: new CatalogueImportService(new CatalogueWriter(ds)),
    products: new ProductsService(repo, noCores),
  };
}

/** A bounded set of image URLs shared by generated rows (the demo images are not needed here). */
export function imageUrl(index: number): string {
  return `https://cdn.example.com/bench/${index % 500}.png`;
}

export async function* demoRows(count: number, idPrefix = 'demo'): AsyncGenerator<NumberedRow> {
  const colours = vocabularyColours();
  for (let i = 1; i <= count; i += 1) {
    const { row } = demoProduct(i, colours, idPrefix);
    yield { line: i, row: { ...row, image_link: imageUrl(i) } };
  }
}

/** A core search profile made directly from vocabulary colours (name, share) and attributes. */
export function profileFrom(
  name: string,
  colours: [string, number][],
  attrs: { styleAttributes?: string[]; tags?: string[]; patterns?: string[] } = {},
): CoreSearchProfile {
  const vocab = new Map(vocabularyColours().map((c) => [c.name, c]));
  return {
    id: name,
    name,
    taste: name,
    styleAttributes: attrs.styleAttributes ?? [],
    tags: attrs.tags ?? [],
    patterns: attrs.patterns ?? ['solid'],
    palette: colours.map(([colour, share]) => {
      const v = vocab.get(colour);
      if (!v) throw new Error(`unknown vocabulary colour ${colour}`);
      return { name: v.name, hex: v.hex, oklab: v.oklab, share };
    }),
  };
}

export function percentile(sorted: number[], p: number): number {
  if (sorted.length === 0) return 0;
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)];
}
