const UUID_RE = /^[0-9a-f]{8}-[0-9a-f]{4}-[1-8][0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/i;

/** Ids are opaque to clients; internally UUIDs. A malformed id is simply "not found". */
export function isUuid(value: string): boolean {
  return UUID_RE.test(value);
}

/**
 * class-validator constraints that say what a value must be. When one of them fails, the value's other
 * rules (its length, range or pattern) say nothing useful: a missing `name` was "name must be shorter
 * than or equal to 255 characters; name must be longer than or equal to 1 characters; name must be a
 * string", `minPrice: "10"` began with "minPrice must not be less than 0", and `PORT=abc` listed its
 * range too.
 */
const TYPE_CONSTRAINTS = new Set([
  'isDefined',
  'isString',
  'isNumber',
  'isInt',
  'isBoolean',
  'isArray',
  'isObject',
  'isEnum',
  'isIn',
  'nestedValidation',
]);

/** A value's failed-rule messages: its type's alone when its type is wrong, else every one. */
export function typeFirstMessages(constraints: Record<string, string>): string[] {
  const typeFailures = Object.keys(constraints).filter((k) => TYPE_CONSTRAINTS.has(k));
  return (typeFailures.length > 0 ? typeFailures : Object.keys(constraints)).map((k) => constraints[k]);
}
