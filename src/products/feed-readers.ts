import { open } from 'node:fs/promises';
import type { ReadStream } from 'node:fs';
import { createInterface } from 'node:readline';
import Papa from 'papaparse';
import type { RawFeedRow } from './catalogue-feed';

/** A feed row with its line number, or the reason the line could not be read. */
export type NumberedRow = { line: number; row: RawFeedRow } | { line: number; error: string };

/** The first line of a file (for sniffing its format), read without streaming the rest. */
export async function readFirstLine(file: string): Promise<string> {
  const handle = await open(file, 'r');
  try {
    const buf = Buffer.alloc(64 * 1024);
    const { bytesRead } = await handle.read(buf, 0, buf.length, 0);
    return buf.subarray(0, bytesRead).toString('utf8').split(/\r?\n/)[0] ?? '';
  } finally {
    await handle.close();
  }
}

/** Parsed rows waiting for the importer before the parser is paused. */
const PARSE_QUEUE_HIGH_WATER = 1024;
/**
 * Characters read past the last complete row before the import stops: no feed row comes near it, but
 * an unclosed quote would otherwise hold the rest of the file as one pending row and re-scan it with
 * every chunk.
 */
const MAX_PENDING_ROW_CHARS = 1024 * 1024;

/**
 * Papa Parse's rows to numbered feed rows: the header row's names lower-cased, the line each row starts
 * on, blank lines skipped, a row the parser reports an error for (a malformed quote) a rejection.
 *
 * The parser reports rows, not lines, so lines are counted here as one per row plus the line breaks
 * inside its quoted fields; blank lines are read as rows too (`skipEmptyLines: false`) so that they are
 * counted before they are skipped.
 */
class DelimitedRows {
  private header: string[] | undefined;
  /** The line the next row starts on. */
  line = 1;
  /** Set when the header lacks some of the required columns: no row could be imported. */
  headerProblem: string | undefined;

  constructor(private readonly required: readonly string[]) {}

  /** Appends a parsed chunk's rows to `out`. */
  addChunk(results: Papa.ParseResult<string[]>, out: NumberedRow[]): void {
    const breakChar = results.meta.linebreak === '\r' ? '\r' : '\n';
    const errors = new Map<number, string>();
    for (const err of results.errors) if (err.row !== undefined) errors.set(err.row, err.message);
    results.data.forEach((values, i) => {
      const start = this.line;
      this.line += 1;
      for (const value of values) {
        for (let at = value.indexOf(breakChar); at !== -1; at = value.indexOf(breakChar, at + 1))
          this.line += 1;
      }
      if (values.length === 1 && values[0].trim() === '') return; // a blank line
      const error = errors.get(i);
      if (error !== undefined) out.push({ line: start, error: unreadable(error, start, this.line - 1) });
      else if (!this.header) this.setHeader(headerNames(values));
      else out.push({ line: start, row: this.toRow(values) });
    });
  }

  private setHeader(names: string[]): void {
    this.header = names;
    const missing = this.required.filter((c) => !names.includes(c));
    if (missing.length > 0) {
      this.headerProblem =
        `line ${this.line - 1}: the header has no ${missing.join(', ')} column (Merchant Center attribute ` +
        `names: ${this.required.join(', ')}); no row could be imported`;
    }
  }

  private toRow(values: readonly string[]): RawFeedRow {
    const header = this.header ?? [];
    const row: RawFeedRow = {};
    for (let n = 0; n < header.length && n < values.length; n += 1)
      if (header[n] !== '') row[header[n]] = values[n];
    return row;
  }
}

/**
 * A header's attribute names: lower case, without a BOM, Merchant's `g:` namespace prefix dropped and
 * inner spaces read as underscores (`g:id`, `Image Link` are `id`, `image_link`).
 */
function headerNames(values: readonly string[]): string[] {
  return values.map((name, n) =>
    (n === 0 ? name.replace(/^\uFEFF/, '') : name)
      .trim()
      .toLowerCase()
      .replace(/^g:/, '')
      .replace(/\s+/g, '_'),
  );
}

/**
 * A row the parser could not read. A malformed quote makes it run on over the lines after it, whose
 * rows are then part of it: the reason names those lines, so the summary accounts for every one.
 */
function unreadable(error: string, start: number, end: number): string {
  return end > start
    ? `unreadable row: ${error} (lines ${start}-${end} were read as this one row; the rows on them were not imported)`
    : `unreadable row: ${error}`;
}

/**
 * CSV and TSV through Papa Parse, streamed chunk by chunk (docs/decisions/0007), with flow control: the
 * parser and the file stream are paused while the importer has enough rows queued, and woken when it
 * has taken them. TSV is read with Merchant Center's quoted attributes, as CSV is (docs/decisions/0060):
 * a value in double quotes may hold tabs and line breaks, and `""` in it is one quote mark.
 */
class DelimitedFeed {
  private queue: NumberedRow[] = [];
  private readonly rows: DelimitedRows;
  private received = 0;
  private paused: Papa.Parser | undefined;
  private finished = false;
  private failure: Error | undefined;
  private wake: (() => void) | undefined;

  constructor(
    private readonly stream: ReadStream,
    private readonly maxPendingChars: number,
    required: readonly string[],
  ) {
    this.rows = new DelimitedRows(required);
  }

  start(delimiter: string): void {
    // Strings, not buffers: the parser would decode each buffer alone and split characters at the edges.
    this.stream.setEncoding('utf8');
    // Registered before the parser's own listener, so that `received` includes the chunk it parses.
    this.stream.on('data', (chunk: string | Buffer) => (this.received += chunk.length));
    Papa.parse<string[]>(this.stream, {
      delimiter,
      header: false,
      skipEmptyLines: false,
      chunk: (results, parser) => this.onChunk(results, parser),
      complete: () => this.end(),
      error: (err: Error) => this.end(err),
    });
  }

  /** The queued rows as they come; throws the parser's or the stream's error after the rows before it. */
  async *take(): AsyncGenerator<NumberedRow> {
    while (true) {
      const ready = this.queue;
      this.queue = [];
      for (const item of ready) yield item;
      if (this.failure) throw this.failure;
      if (this.finished && this.queue.length === 0) return;
      if (this.queue.length > 0) continue;
      const next = new Promise<void>((resolve) => (this.wake = resolve));
      this.resume();
      await next;
    }
  }

  private onChunk(results: Papa.ParseResult<string[]>, parser: Papa.Parser): void {
    this.rows.addChunk(results, this.queue);
    if (this.rows.headerProblem) {
      parser.abort();
      this.stream.destroy();
      this.end(new Error(this.rows.headerProblem));
      return;
    }
    if (this.received - results.meta.cursor > this.maxPendingChars) {
      parser.abort();
      this.stream.destroy();
      this.end(
        new Error(
          `line ${this.rows.line}: no end of row within ${this.maxPendingChars} characters (an unclosed quote?); ` +
            'the rows before it were imported',
        ),
      );
      return;
    }
    if (this.queue.length >= PARSE_QUEUE_HIGH_WATER) {
      // Pausing the parser does not pause its input: the file stream is paused too, or it would be
      // read into the parser's queue while the importer catches up.
      parser.pause();
      this.stream.pause();
      this.paused = parser;
    }
    this.signal();
  }

  private resume(): void {
    const parser = this.paused;
    if (!parser) return;
    this.paused = undefined;
    this.stream.resume();
    parser.resume();
  }

  private end(failure?: Error): void {
    this.failure ??= failure;
    this.finished = true;
    this.signal();
  }

  private signal(): void {
    this.wake?.();
    this.wake = undefined;
  }
}

/**
 * CSV or TSV rows of a feed file, each with the line it starts on (see `DelimitedRows` and
 * `DelimitedFeed`). An unclosed quote stops the read after `maxPendingChars` characters past the last
 * complete row, with its line number; so does a header without one of the `required` columns (a feed
 * whose every row would be rejected ended with exit 0).
 */
export async function* readDelimited(
  stream: ReadStream,
  delimiter: string,
  maxPendingChars = MAX_PENDING_ROW_CHARS,
  required: readonly string[] = [],
): AsyncGenerator<NumberedRow> {
  const feed = new DelimitedFeed(stream, maxPendingChars, required);
  feed.start(delimiter);
  try {
    yield* feed.take();
  } finally {
    stream.destroy();
  }
}

/** JSON lines: one object per line; blank lines are skipped, anything else unreadable is a rejection. */
export async function* readJsonLines(stream: NodeJS.ReadableStream): AsyncGenerator<NumberedRow> {
  const lines = createInterface({ input: stream, crlfDelay: Infinity });
  let line = 0;
  for await (const text of lines) {
    line += 1;
    const trimmed = (line === 1 ? text.replace(/^\uFEFF/, '') : text).trim();
    if (trimmed === '') continue;
    try {
      const value: unknown = JSON.parse(trimmed);
      if (typeof value === 'object' && value !== null && !Array.isArray(value)) {
        yield { line, row: value as RawFeedRow };
      } else {
        yield { line, error: 'not a JSON object' };
      }
    } catch {
      yield { line, error: 'invalid JSON' };
    }
  }
}
