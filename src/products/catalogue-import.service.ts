import { createReadStream } from 'node:fs';
import { stat } from 'node:fs/promises';
import { Inject, Injectable, Logger, Optional } from '@nestjs/common';
import type Redis from 'ioredis';
import { CATALOGUE_IMPORT_METRICS_KEY } from '../metrics/metrics.service';
import { REDIS } from '../redis/redis.module';
import { CatalogueRow, FeedFormat, formatFromName, sniffFormat, validateFeedRow } from './catalogue-feed';
import { NumberedRow, readDelimited, readFirstLine, readJsonLines } from './feed-readers';
import { ColourFeatures, colourFeatures } from './product-colour';
import { ProductImageAnalyser } from './product-image-analyser.service';
import { ProductsRepository, UpsertCounts } from './products.repository';

const IMPORT_BATCH_SIZE = 1000;
/** Batches written at once (measured best on 2 cores: 3, while the next batch is parsed). */
const WRITE_CONCURRENCY = 3;
/** Rejections listed in the summary; `rejected` still counts every one. */
const MAX_LISTED_REJECTIONS = 10_000;

export interface ImportRejection {
  line: number;
  reason: string;
}

export interface ImportSummary {
  /** Rows new to the catalogue. */
  inserted: number;
  /** Rows already in the catalogue whose fields changed. */
  updated: number;
  /** Rows already in the catalogue exactly as given (left untouched). */
  unchanged: number;
  rejected: number;
  rejections: ImportRejection[];
  rejectionsTruncated?: boolean;
  /** With `--analyse-images`: product images analysed, and those that could not be (feed colour kept). */
  imagesAnalysed?: number;
  imagesFailed?: number;
  imageFailures?: { id: string; reason: string }[];
}

export interface ImportProgress {
  bytesRead: number;
  totalBytes: number;
  rows: number;
}

export interface ImportOptions {
  format?: FeedFormat;
  batchSize?: number;
  onProgress?: (progress: ImportProgress) => void;
  /** Fetch each product image (SSRF-safe) and take its colour from the image, not the feed text. */
  analyseImages?: boolean;
}

export type { NumberedRow } from './feed-readers';

/**
 * Streams a Google Merchant Center feed (CSV, TSV or JSON lines) into the catalogue: rows are validated
 * one by one and upserted by feed id in batches, one statement per batch; the file is never held in
 * memory. While one batch is written, the next one is parsed.
 */
@Injectable()
export class CatalogueImportService {
  private readonly logger = new Logger(CatalogueImportService.name);

  constructor(
    private readonly repo: ProductsRepository,
    @Optional() private readonly analyser?: ProductImageAnalyser,
    @Optional() @Inject(REDIS) private readonly redis?: Redis,
  ) {}

  /**
   * Adds a finished import's counts to the Redis hash the API's /metrics reads
   * (`catalogue_import_rows_total`, `catalogue_imports_total`). Never fails the import.
   */
  private async recordMetrics(summary: ImportSummary): Promise<void> {
    if (!this.redis) return;
    try {
      await this.redis
        .multi()
        .hincrby(CATALOGUE_IMPORT_METRICS_KEY, 'imports', 1)
        .hincrby(CATALOGUE_IMPORT_METRICS_KEY, 'inserted', summary.inserted)
        .hincrby(CATALOGUE_IMPORT_METRICS_KEY, 'updated', summary.updated)
        .hincrby(CATALOGUE_IMPORT_METRICS_KEY, 'unchanged', summary.unchanged)
        .hincrby(CATALOGUE_IMPORT_METRICS_KEY, 'rejected', summary.rejected)
        .exec();
    } catch (err) {
      this.logger.warn(`import metrics not recorded: ${err instanceof Error ? err.message : String(err)}`);
    }
  }

  /** Adds the colour features to validated feed rows and upserts them in one statement. */
  async upsertRows(
    rows: readonly CatalogueRow[],
    imageColours?: readonly (ColourFeatures | null)[],
  ): Promise<UpsertCounts> {
    return this.repo.upsertBatch(
      rows.map((row, i) => {
        const colour = imageColours?.[i] ?? colourFeatures(row.colour);
        return Object.assign(row, {
          colourL: colour?.l ?? null,
          colourA: colour?.a ?? null,
          colourB: colour?.b ?? null,
          colourFamily: colour?.family ?? null,
        });
      }),
    );
  }

  /** With `analyseImages`: the dominant colour of each row's image, null where it failed (counted). */
  private async imageColours(
    rows: readonly CatalogueRow[],
    summary: ImportSummary,
  ): Promise<(ColourFeatures | null)[]> {
    if (!this.analyser) throw new Error('image analysis is not available in this process');
    const results = await this.analyser.dominantColours(rows.map((r) => r.mediaUrl));
    return results.map((r, i) => {
      if ('error' in r) {
        summary.imagesFailed = (summary.imagesFailed ?? 0) + 1;
        const failures = (summary.imageFailures ??= []);
        if (failures.length < MAX_LISTED_REJECTIONS)
          failures.push({ id: rows[i].externalId, reason: r.error });
        return null;
      }
      summary.imagesAnalysed = (summary.imagesAnalysed ?? 0) + 1;
      return r;
    });
  }

  async importFile(file: string, opts: ImportOptions = {}): Promise<ImportSummary> {
    const totalBytes = (await stat(file)).size;
    const format = opts.format ?? formatFromName(file) ?? sniffFormat(await readFirstLine(file));
    const stream = createReadStream(file);
    const rows =
      format === 'jsonl' ? readJsonLines(stream) : readDelimited(stream, format === 'tsv' ? '\t' : ',');
    return this.importRows(rows, {
      ...opts,
      onProgress: opts.onProgress
        ? (p) => opts.onProgress?.({ ...p, bytesRead: stream.bytesRead, totalBytes })
        : undefined,
    });
  }

  /** Validates and upserts rows from any source (the file reader, the demo catalogue, benchmarks). */
  async importRows(rows: AsyncIterable<NumberedRow>, opts: ImportOptions = {}): Promise<ImportSummary> {
    const batchSize = opts.batchSize ?? IMPORT_BATCH_SIZE;
    const summary: ImportSummary = { inserted: 0, updated: 0, unchanged: 0, rejected: 0, rejections: [] };
    const reject = (line: number, reason: string): void => {
      summary.rejected += 1;
      if (summary.rejections.length < MAX_LISTED_REJECTIONS) summary.rejections.push({ line, reason });
      else summary.rejectionsTruncated = true;
    };
    let batch: CatalogueRow[] = [];
    let ids = new Set<string>();
    // Up to WRITE_CONCURRENCY batches are written at once (PostgreSQL computes the search vectors on
    // one core per connection), while the next batch is parsed. Each batch is sorted by id, so
    // concurrent upserts lock rows in one order; an id already in a batch being written waits for it,
    // so the later row in the file always wins.
    const inFlight: { done: Promise<void>; ids: Set<string> }[] = [];
    let seen = 0;
    let firstError: unknown;
    const drainOne = async (): Promise<void> => {
      const oldest = inFlight.shift();
      if (oldest) await oldest.done;
    };
    const flush = async (): Promise<void> => {
      const current = batch.sort((a, b) =>
        a.externalId < b.externalId ? -1 : a.externalId > b.externalId ? 1 : 0,
      );
      const currentIds = ids;
      batch = [];
      ids = new Set();
      while (inFlight.length >= WRITE_CONCURRENCY) await drainOne();
      const colours = opts.analyseImages ? this.imageColours(current, summary) : Promise.resolve(undefined);
      const done = colours
        .then((c) => this.upsertRows(current, c))
        .then(
          ({ inserted, updated, unchanged }) => {
            summary.inserted += inserted;
            summary.updated += updated;
            summary.unchanged += unchanged;
          },
          (err: unknown) => {
            firstError ??= err;
          },
        );
      inFlight.push({ done, ids: currentIds });
    };
    const rethrow = (): void => {
      if (firstError !== undefined) throw firstError;
    };

    for await (const item of rows) {
      seen += 1;
      if ('error' in item) {
        reject(item.line, item.error);
        continue;
      }
      const result = validateFeedRow(item.row);
      if (!result.ok) {
        reject(item.line, result.reason);
        continue;
      }
      rethrow();
      // One statement cannot update the same row twice: a repeated id starts a new batch, and waits
      // for any batch being written that holds it.
      if (ids.has(result.row.externalId)) await flush();
      while (inFlight.some((f) => f.ids.has(result.row.externalId))) await drainOne();
      batch.push(result.row);
      ids.add(result.row.externalId);
      if (batch.length >= batchSize) {
        await flush();
        opts.onProgress?.({ bytesRead: 0, totalBytes: 0, rows: seen });
      }
    }
    if (batch.length > 0) await flush();
    while (inFlight.length > 0) await drainOne();
    rethrow();
    // The search's colour walk reads an index-only scan: it needs the visibility map and fresh statistics.
    if (summary.inserted + summary.updated > 0) await this.repo.prepareForSearch();
    opts.onProgress?.({ bytesRead: 0, totalBytes: 0, rows: seen });
    await this.recordMetrics(summary);
    return summary;
  }
}
