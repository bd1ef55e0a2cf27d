/**
 * SQLSTATE classes that a retry cannot change: the server answered and refused the connection
 * (28: invalid authorization, a wrong user or password; 3D: no such database).
 */
const REFUSED_CLASSES = new Set(['28', '3D']);

/**
 * Whether connecting again may succeed: true for an unreachable or starting server (connection
 * refused, a timeout, DNS not ready yet, `57P03` the database system is starting up), false when
 * PostgreSQL refused this user or database. A process then fails at once with the server's own
 * message instead of retrying for half a minute.
 */
export function isRetryableConnectError(err: unknown): boolean {
  const code = typeof err === 'object' && err !== null ? (err as { code?: unknown }).code : undefined;
  return !(typeof code === 'string' && code.length === 5 && REFUSED_CLASSES.has(code.slice(0, 2)));
}
