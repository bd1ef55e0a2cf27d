import { createReadStream } from 'node:fs';
import { stat } from 'node:fs/promises';
import { Inject, Injectable, Logger, Optional } from '@nestjs/common';
import type Redis from 'ioredis';
import { byCodeUnits } from '../common/code-unit-order';
import { CATALOGUE_IMPORT_METRICS_KEY } from '../metrics/catalogue-import-metrics';
import { REDIS } from '../redis/redis.module';
import {
  CatalogueRow,
  FeedFormat,
  formatFromName,
  REQUIRED_COLUMNS,
  sniffFormat,
  validateFeedRow,
} from './catalogue-feed';
import { NumberedRow, readDelimited, readFirstLine, readJsonLines } from './feed-readers';
import { ColourFeatures, colourFeatures } from './product-colour';
import { CatalogueWriter, UpsertCounts } from './catalogue-writer';

/**
 * Rows per chunk: one COPY and one merge statement each (docs/decisions/0029). Large enough that a
 * product's variants mostly share a chunk (their search features are computed once per
 * chunk), small enough that the last chunk's merge, which nothing overlaps, stays short.
 */
const IMPORT_CHUNK_SIZE = 5000;
/** Chunks merged at once while the next one is parsed (one PostgreSQL backend each; 2 cores here). */
const WRITE_CONCURRENCY = 2;
/** Rows per chunk with `--analyse-images`: every image is fetched first, so progress shows sooner. */
const ANALYSED_CHUNK_SIZE = 1000;
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
  /** Rows per chunk (default 5000; 1000 with `analyseImages`). */
  batchSize?: number;
  onProgress?: (progress: ImportProgress) => void;
  /** Fetch each product image (SSRF-safe) and take its colour from the image, not the feed text. */
  analyseImages?: boolean;
}

export type { NumberedRow } from './feed-readers';

/**
 * What `--analyse-images` needs (`ProductImageAnalyser`), behind a token so that an import without it
 * loads neither the image fetcher nor the taste engine (the CLI starts faster, docs/decisions/0029).
 */
export interface ImageColourAnalyser {
  dominantColours(urls: readonly string[]): Promise<(ColourFeatures | { error: string })[]>;
}
export const IMAGE_COLOUR_ANALYSER = Symbol('IMAGE_COLOUR_ANALYSER');

/**
 * Chunks of validated rows on their way to the catalogue: up to `concurrency` chunks are written at once
 * while the next one fills. Each chunk is sorted by id, so concurrent merges lock rows in one order. One
 * statement cannot write the same row twice, and the later row of a feed must win: a repeated id closes
 * the current chunk, and a row whose id is in a chunk still being written waits for that chunk.
 */
class ChunkPipeline {
  private chunk: CatalogueRow[] = [];
  private ids = new Set<string>();
  private readonly inFlight: { done: Promise<void>; ids: Set<string> }[] = [];
  private firstError: unknown;

  constructor(
    private readonly write: (rows: CatalogueRow[]) => Promise<UpsertCounts>,
    private readonly summary: ImportSummary,
    private readonly chunkSize: number,
    private readonly concurrency: number,
  ) {}

  /** Adds a row; true when it completed a chunk (which is now being written). */
  async add(row: CatalogueRow): Promise<boolean> {
    this.rethrow();
    if (this.ids.has(row.externalId)) await this.flush();
    while (this.inFlight.some((f) => f.ids.has(row.externalId))) await this.drainOne();
    this.chunk.push(row);
    this.ids.add(row.externalId);
    if (this.chunk.length < this.chunkSize) return false;
    await this.flush();
    return true;
  }

  /** Writes the last chunk and waits for every chunk; throws the first write error. */
  async finish(): Promise<void> {
    if (this.chunk.length > 0) await this.flush();
    while (this.inFlight.length > 0) await this.drainOne();
    this.rethrow();
  }

  private rethrow(): void {
    if (this.firstError !== undefined) throw this.firstError;
  }

  private async drainOne(): Promise<void> {
    await this.inFlight.shift()?.done;
  }

  private async flush(): Promise<void> {
    const rows = this.chunk.sort((a, b) => byCodeUnits(a.externalId, b.externalId));
    const ids = this.ids;
    this.chunk = [];
    this.ids = new Set();
    while (this.inFlight.length >= this.concurrency) await this.drainOne();
    const done = this.write(rows).then(
      ({ inserted, updated, unchanged }) => {
        this.summary.inserted += inserted;
        this.summary.updated += updated;
        this.summary.unchanged += unchanged;
      },
      (err: unknown) => {
        this.firstError ??= err;
      },
    );
    this.inFlight.push({ done, ids });
  }
}

/**
 * Streams a Google Merchant Center feed (CSV, TSV or JSON lines) into the catalogue: rows are validated
 * one by one and written by feed id in chunks, each copied into a staging table and merged in one
 * statement (`CatalogueWriter`); the file is never held in memory. While chunks are merged, the next one
 * is parsed.
 */
@Injectable()
export class CatalogueImportService {
  private readonly logger = new Logger(CatalogueImportService.name);

  constructor(
    private readonly writer: CatalogueWriter,
    @Optional() @Inject(IMAGE_COLOUR_ANALYSER) private readonly analyser?: ImageColourAnalyser,
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

  /**
   * Adds the colour features to validated feed rows (from the feed colour through `colourFeatures`, which
   * caches each distinct value, or from the analysed image) and writes them as one chunk.
   */
  async upsertRows(
    rows: readonly CatalogueRow[],
    imageColours?: readonly (ColourFeatures | null)[],
  ): Promise<UpsertCounts> {
    return this.writer.writeChunk(
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
      format === 'jsonl'
        ? readJsonLines(stream)
        : readDelimited(stream, format === 'tsv' ? '\t' : ',', undefined, REQUIRED_COLUMNS);
    return this.importRows(rows, {
      ...opts,
      onProgress: opts.onProgress
        ? (p) => opts.onProgress?.({ ...p, bytesRead: stream.bytesRead, totalBytes })
        : undefined,
    });
  }

  /** Validates and writes rows from any source (the file reader, the demo catalogue, benchmarks). */
  async importRows(rows: AsyncIterable<NumberedRow>, opts: ImportOptions = {}): Promise<ImportSummary> {
    const summary: ImportSummary = { inserted: 0, updated: 0, unchanged: 0, rejected: 0, rejections: [] };
    const reject = (line: number, reason: string): void => {
      summary.rejected += 1;
      if (summary.rejections.length < MAX_LISTED_REJECTIONS) summary.rejections.push({ line, reason });
      else summary.rejectionsTruncated = true;
    };
    const write = opts.analyseImages
      ? async (chunk: CatalogueRow[]) => this.upsertRows(chunk, await this.imageColours(chunk, summary))
      : (chunk: CatalogueRow[]) => this.upsertRows(chunk);
    const chunkSize = opts.batchSize ?? (opts.analyseImages ? ANALYSED_CHUNK_SIZE : IMPORT_CHUNK_SIZE);
    const chunks = new ChunkPipeline(write, summary, chunkSize, WRITE_CONCURRENCY);
    let seen = 0;
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
      if (await chunks.add(result.row)) opts.onProgress?.({ bytesRead: 0, totalBytes: 0, rows: seen });
    }
    await chunks.finish();
    // The search's colour walk reads an index-only scan: it needs the visibility map and fresh statistics.
    if (summary.inserted + summary.updated > 0) await this.writer.prepareForSearch();
    opts.onProgress?.({ bytesRead: 0, totalBytes: 0, rows: seen });
    await this.recordMetrics(summary);
    return summary;
  }
}
