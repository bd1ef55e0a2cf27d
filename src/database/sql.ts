/**
 * A small SQL builder for the hand-written statements (docs/decisions/0037-sql-builder-and-snapshots.md):
 * fragments are written as tagged templates, values become `$n` placeholders only when the whole
 * statement is rendered, so no caller numbers a parameter or appends to another's value array.
 *
 *   const price = param(20);
 *   render(sql`SELECT id FROM products s WHERE s.price >= ${price} OR s.price IS NULL LIMIT ${10}`)
 *   // { text: 'SELECT id FROM products s WHERE s.price >= $1 OR s.price IS NULL LIMIT $2', values: [20, 10] }
 *
 * A plain value is one placeholder each time it appears; a `param()` is one placeholder however many
 * times (and in however many fragments) it appears. Placeholders are numbered in order of appearance.
 */

/** A rendered statement, as `pg`'s `query(text, values)` takes it. */
export interface SqlQuery {
  text: string;
  values: unknown[];
}

/** A value bound once per statement, wherever it appears. */
export class SqlParam {
  constructor(readonly value: unknown) {}
}

/** A piece of SQL text with its values in place. */
export class SqlFragment {
  constructor(
    readonly strings: readonly string[],
    readonly args: readonly unknown[],
  ) {}
}

/** A fragment: `${fragment}` nests it, `${param(v)}` binds `v` once, any other `${v}` binds `v`. */
export function sql(strings: TemplateStringsArray, ...args: unknown[]): SqlFragment {
  return new SqlFragment([...strings], args);
}

/** A value bound to one placeholder, however many times the statement uses it. */
export function param(value: unknown): SqlParam {
  return new SqlParam(value);
}

/** Trusted SQL text (an identifier or a keyword of ours, never input). */
export function raw(text: string): SqlFragment {
  return new SqlFragment([text], []);
}

/** The fragments joined by `separator` (trusted text). */
export function join(fragments: readonly SqlFragment[], separator: string): SqlFragment {
  if (fragments.length === 0) return raw('');
  const strings = ['', ...fragments.slice(1).map(() => separator), ''];
  return new SqlFragment(strings, fragments);
}

/** The statement's text with `$1..$n` and its values in that order. */
export function render(fragment: SqlFragment): SqlQuery {
  const values: unknown[] = [];
  const bound = new Map<SqlParam, string>();
  const place = (arg: unknown): string => {
    if (arg instanceof SqlFragment) return write(arg);
    if (arg instanceof SqlParam) {
      let at = bound.get(arg);
      if (!at) bound.set(arg, (at = `$${values.push(arg.value)}`));
      return at;
    }
    return `$${values.push(arg)}`;
  };
  const write = (f: SqlFragment): string =>
    f.strings.reduce((text, s, i) => text + s + (i < f.args.length ? place(f.args[i]) : ''), '');
  return { text: write(fragment), values };
}
