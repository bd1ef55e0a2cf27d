/**
 * Compares strings by UTF-16 code units, as PostgreSQL's `COLLATE "C"` does: the same order in every
 * locale, unlike `localeCompare` (which folds case and weighs punctuation by the process's locale).
 */
export function byCodeUnits(x: string, y: string): number {
  return x < y ? -1 : x > y ? 1 : 0;
}
