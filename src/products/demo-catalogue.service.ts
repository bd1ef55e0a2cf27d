import { Injectable } from '@nestjs/common';
import { ImageStore } from '../storage';
import { CatalogueImportService, ImportSummary, NumberedRow } from './catalogue-import.service';
import { DemoProduct, demoProduct, lookKey } from './demo-catalogue';
import { demoImageKey, drawingVersion, renderProductImage } from './demo-images';
import { vocabularyColours } from './product-colour';

export const DEFAULT_DEMO_COUNT = 3000;
const RENDER_CONCURRENCY = 4;

export interface DemoOptions {
  count?: number;
  /** First index (1-based); lets tests load a slice of their own. */
  start?: number;
  /** Id prefix; `demo` gives `demo-000001`... */
  idPrefix?: string;
  onProgress?: (done: number, total: number) => void;
}

/**
 * `catalogue:demo`: a generated catalogue with one rendered image per distinct look (silhouette,
 * colour, pattern), stored once under a stable key and shared by every product of that look. Rows go
 * through the importer, so they are validated and upserted like a feed. Idempotent by id.
 */
@Injectable()
export class DemoCatalogueService {
  constructor(
    private readonly importer: CatalogueImportService,
    private readonly store: ImageStore,
  ) {}

  async load(opts: DemoOptions = {}): Promise<ImportSummary & { images: number }> {
    const count = opts.count ?? DEFAULT_DEMO_COUNT;
    const start = opts.start ?? 1;
    const colours = vocabularyColours();
    const hexByName = new Map(colours.map((c) => [c.name, c.hex]));
    const products: DemoProduct[] = [];
    for (let i = start; i < start + count; i += 1) products.push(demoProduct(i, colours, opts.idPrefix));

    const looks = new Map<string, DemoProduct['look']>();
    for (const p of products) looks.set(lookKey(p.look), p.look);
    const urls = new Map<string, string>();
    const queue = [...looks.entries()];
    let done = 0;
    const worker = async (): Promise<void> => {
      for (let next = queue.shift(); next; next = queue.shift()) {
        const [key, look] = next;
        const imageKey = demoImageKey(key, drawingVersion(look.category.silhouette));
        if (!(await this.store.exists(imageKey))) {
          const png = await renderProductImage(
            look.category.silhouette,
            hexByName.get(look.colour) ?? '#888888',
            look.pattern,
          );
          await this.store.put(imageKey, png, 'image/png');
        }
        urls.set(key, this.store.publicUrl(imageKey));
        done += 1;
        opts.onProgress?.(done, looks.size);
      }
    };
    await Promise.all(Array.from({ length: RENDER_CONCURRENCY }, worker));

    async function* rows(): AsyncGenerator<NumberedRow> {
      for (const [i, p] of products.entries()) {
        yield { line: start + i, row: { ...p.row, image_link: urls.get(lookKey(p.look)) ?? '' } };
      }
    }
    const summary = await this.importer.importRows(rows());
    return { ...summary, images: looks.size };
  }
}
