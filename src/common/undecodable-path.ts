/**
 * A request path with a segment that cannot be percent-decoded (`%ZZ`, the invalid UTF-8 `%C3%28`)
 * made Express answer 400 "Failed to decode param" before any route ran, where DECISIONS says a
 * malformed id is the route's 404. Such a segment is escaped whole, so that the route receives it as
 * the literal text it was (no id, no storage key) and answers its own 404. The query is left as it is.
 */
export function escapeUndecodableSegments(url: string): string {
  const q = url.indexOf('?');
  const path = q === -1 ? url : url.slice(0, q);
  if (!path.includes('%')) return url;
  let changed = false;
  const segments = path.split('/').map((segment) => {
    if (!segment.includes('%')) return segment;
    try {
      decodeURIComponent(segment);
      return segment;
    } catch {
      changed = true;
      return encodeURIComponent(segment);
    }
  });
  return changed ? segments.join('/') + (q === -1 ? '' : url.slice(q)) : url;
}
