/**
 * The value of one sample in Prometheus text format: the line of `name` whose labels include every
 * pair of `labels` (undefined when there is none).
 */
export function sample(text: string, name: string, labels: Record<string, string> = {}): number | undefined {
  for (const line of text.split('\n')) {
    const m = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})? (\S+)$/.exec(line);
    if (!m || m[1] !== name) continue;
    const pairs = Object.fromEntries(
      [...(m[2] ?? '').matchAll(/(\w+)="((?:[^"\\]|\\.)*)"/g)].map((p) => [p[1], p[2]]),
    );
    if (Object.entries(labels).every(([k, v]) => pairs[k] === v)) return Number(m[3]);
  }
  return undefined;
}
