/**
 * Redis hash of catalogue import totals (fields `imports` and the IMPORT_OUTCOMES): imports run in
 * the CLI's own process add to it; the API's /metrics reads it at scrape time. In its own file so that
 * the import's CLI start does not load prom-client (docs/decisions/0032).
 */
export const CATALOGUE_IMPORT_METRICS_KEY = 'metrics:catalogue-import';
