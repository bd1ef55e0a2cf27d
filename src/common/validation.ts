const UUID_RE = /^[0-9a-f]{8}-[0-9a-f]{4}-[1-8][0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/i;

/** Ids are opaque to clients; internally UUIDs. A malformed id is simply "not found". */
export function isUuid(value: string): boolean {
  return UUID_RE.test(value);
}
