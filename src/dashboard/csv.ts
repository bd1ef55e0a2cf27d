import { stringify } from 'csv-stringify/sync';

/** Neutralises cells a spreadsheet would run as a formula (= + - @ tab CR) with a leading apostrophe. */
function safeCell(value: unknown): string {
  const text =
    value === null || value === undefined ? '' : value instanceof Date ? value.toISOString() : String(value);
  return /^[=+\-@\t\r]/.test(text) ? `'${text}` : text;
}

/** One CSV cell, quoted (csv-stringify does the RFC 4180 quoting). */
export function csvCell(value: unknown): string {
  return stringify([[safeCell(value)]], { quoted: true, quoted_empty: true, record_delimiter: '' });
}

/** One CSV row, every field quoted, CRLF-terminated. */
export function csvRow(values: readonly unknown[]): string {
  return stringify([values.map(safeCell)], { quoted: true, quoted_empty: true, record_delimiter: '\r\n' });
}
