/** A backing service the API cannot answer without. */
export type Dependency = 'database' | 'redis';

/** PostgreSQL SQLSTATEs that mean "the server is going away or refusing connections". */
const PG_UNAVAILABLE_CODES = new Set([
  '57P01',
  '57P02',
  '57P03',
  '53300',
  '08000',
  '08001',
  '08003',
  '08004',
  '08006',
]);
/** Socket errors. */
const NET_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ETIMEDOUT',
  'EPIPE',
  'EHOSTUNREACH',
  'ENOTFOUND',
  'EAI_AGAIN',
]);
const PG_MESSAGES = [
  /Connection terminated/i,
  /timeout exceeded when trying to connect/i,
  /Client has encountered a connection error/i,
  /the database system is (starting up|shutting down|in recovery mode)/i,
];
const REDIS_MESSAGES = [
  /enableOfflineQueue options is false/,
  /Connection is closed/,
  /Command timed out/,
  /Reached the max retries per request limit/,
];

function field(err: unknown, name: string): unknown {
  return typeof err === 'object' && err !== null ? (err as Record<string, unknown>)[name] : undefined;
}

/**
 * Which dependency an error says is unreachable, or null for any other error (docs/decisions/0018):
 * such errors become a 503 with the error body instead of a 500.
 */
export function unreachableDependency(err: unknown): Dependency | null {
  if (!(err instanceof Error)) return null;
  if (err.name === 'MaxRetriesPerRequestError' || REDIS_MESSAGES.some((re) => re.test(err.message))) {
    return 'redis';
  }
  // TypeORM wraps the driver's error (QueryFailedError.driverError); pg's own errors carry `code`.
  const driver = field(err, 'driverError') ?? err;
  const code = field(driver, 'code') ?? field(err, 'code');
  const message = String(field(driver, 'message') ?? err.message);
  if (typeof code === 'string' && (PG_UNAVAILABLE_CODES.has(code) || NET_CODES.has(code))) return 'database';
  if (PG_MESSAGES.some((re) => re.test(message))) return 'database';
  return null;
}
