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
 * CSV and TSV through Papa Parse, streamed chunk by chunk (docs/decisions/0007): the header row's names
 * are lower-cased, a row the parser reports an error for (a malformed quote) becomes a rejection, and
 * the parser is paused while the importer has enough rows queued. TSV is read without quoting
 * (`fastMode`), as Merchant Center defines it.
 *
 * Each row carries the line it starts on: the parser reports rows, not lines, so lines are counted
 * here as one per row plus the line breaks inside its quoted fields; blank lines are read as rows too
 * (`skipEmptyLines: false`) so that they are counted before they are skipped.
 */
export async function* readDelimited(
  stream: ReadStream,
  delimiter: string,
  maxPendingChars = MAX_PENDING_ROW_CHARS,
): AsyncGenerator<NumberedRow> {
  // Strings, not buffers: the parser would decode each buffer alone and split characters at the edges.
  stream.setEncoding('utf8');
  let received = 0;
  stream.on('data', (chunk: string | Buffer) => (received += chunk.length)); // before the parser's listener
  let queue: NumberedRow[] = [];
  let header: string[] | undefined;
  let line = 1;
  let paused: Papa.Parser | undefined;
  let finished = false;
  let failure: Error | undefined;
  let wake: (() => void) | undefined;
  const signal = (): void => {
    wake?.();
    wake = undefined;
  };
  Papa.parse<string[]>(stream, {
    delimiter,
    header: false,
    skipEmptyLines: false,
    fastMode: delimiter === '\t' ? true : undefined,
    chunk: (results, parser) => {
      const breakChar = results.meta.linebreak === '\r' ? '\r' : '\n';
      const errors = new Map<number, string>();
      for (const err of results.errors) if (err.row !== undefined) errors.set(err.row, err.message);
      results.data.forEach((values, i) => {
        const start = line;
        line += 1;
        for (const value of values) {
          for (let at = value.indexOf(breakChar); at !== -1; at = value.indexOf(breakChar, at + 1)) line += 1;
        }
        if (values.length === 1 && values[0].trim() === '') return; // a blank line
        const error = errors.get(i);
        if (error !== undefined) {
          queue.push({ line: start, error: `unreadable row: ${error}` });
        } else if (!header) {
          header = values.map((name, n) =>
            (n === 0 ? name.replace(/^\uFEFF/, '') : name).trim().toLowerCase(),
          );
        } else {
          const row: RawFeedRow = {};
          for (let n = 0; n < header.length && n < values.length; n += 1)
            if (header[n] !== '') row[header[n]] = values[n];
          queue.push({ line: start, row });
        }
      });
      if (received - results.meta.cursor > maxPendingChars) {
        parser.abort();
        stream.destroy();
        failure = new Error(
          `line ${line}: no end of row within ${maxPendingChars} characters (an unclosed quote?); ` +
            'the rows before it were imported',
        );
        finished = true;
      } else if (queue.length >= PARSE_QUEUE_HIGH_WATER) {
        // Pausing the parser does not pause its input: the file stream is paused too, or it would be
        // read into the parser's queue while the importer catches up.
        parser.pause();
        stream.pause();
        paused = parser;
      }
      signal();
    },
    complete: () => {
      finished = true;
      signal();
    },
    error: (err: Error) => {
      failure = err;
      finished = true;
      signal();
    },
  });
  try {
    while (true) {
      const ready = queue;
      queue = [];
      for (const item of ready) yield item;
      if (failure) throw failure;
      if (finished && queue.length === 0) return;
      if (queue.length > 0) continue;
      const next = new Promise<void>((resolve) => (wake = resolve));
      if (paused) {
        const parser = paused;
        paused = undefined;
        stream.resume();
        parser.resume();
      }
      await next;
    }
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
