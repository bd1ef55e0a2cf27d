/**
 * Conformance of the document @nestjs/swagger generates (openapi/generated.json, OAS 3.0) against the
 * hand-written contract of record (openapi/taste-profile.v1.yaml, OAS 3.1): the one place where the
 * DTOs' shapes meet the specification (docs/decisions/0036).
 *
 * Both documents come in dereferenced (`SwaggerParser.dereference`, see tools/openapi-check.ts). The
 * contract is the reference; the generated document may add operations, optional properties and
 * optional parameters. Rules:
 * 1. Operations: every contract operation (method + the first server's path + path template) exists in
 *    the generated document; path parameter names do not matter (`/cores/{id}` == `/cores/{coreId}`).
 * 2. Parameters: each contract parameter exists (path parameters matched by position, header names
 *    case-insensitively) with the same required flag and schema (rule 5); the generated document
 *    requires no query or header parameter the contract lacks.
 * 3. Request body: present when the contract has one, same `required` flag, same JSON schema (rule 5),
 *    where every contract property is accepted and the required sets are equal.
 * 4. Responses: every contract status code exists; a contract JSON body has a generated JSON body with
 *    the same schema (rule 5), where every contract-required property exists and is required.
 * 5. Schemas, where the contract sets them: type, nullability, format, enum (as a set; a contract
 *    `const` only clashes with a different generated enum), the bounds in BOUND_KEYWORDS, properties
 *    (rules 3 and 4) and array items, recursively.
 * Spellings that compare equal: `nullable: true` == `type: [T, 'null']` == `oneOf/anyOf: [X, {type:
 * 'null'}]` == `null` in `enum`; `allOf` members are merged into the schema that holds them.
 * Descriptions, examples, patterns, tags and operation ids are not compared.
 */

export type JsonObject = Record<string, unknown>;

const HTTP_METHODS = ['get', 'put', 'post', 'delete', 'patch'] as const;

/** Numeric and length keywords compared whenever the contract sets them. */
export const BOUND_KEYWORDS = [
  'maxItems',
  'minItems',
  'maxLength',
  'minLength',
  'minimum',
  'maximum',
  'exclusiveMinimum',
  'exclusiveMaximum',
] as const;

export function isObject(value: unknown): value is JsonObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function asArray(value: unknown): unknown[] {
  return Array.isArray(value) ? value : [];
}

const fmt = (value: unknown): string => (value === undefined ? 'absent' : JSON.stringify(value));

function sameSet(a: unknown[], b: unknown[]): boolean {
  const left = new Set(a.map(fmt));
  const right = new Set(b.map(fmt));
  return left.size === right.size && [...left].every((value) => right.has(value));
}

// Operations -------------------------------------------------------------------------------------------

export interface Operation {
  method: string;
  /** The first server's path + the path template. */
  fullPath: string;
  label: string;
  operation: JsonObject;
  /** Path-item parameters overridden by the operation's own (by location and name). */
  parameters: JsonObject[];
}

/** The path of the first server URL (`/api/v1/org`), '' without servers. */
function basePath(doc: JsonObject): string {
  const server = asArray(doc.servers)[0];
  const url = isObject(server) && typeof server.url === 'string' ? server.url : '/';
  return new URL(url, 'http://host').pathname.replace(/\/+$/, '');
}

/** Every operation of a document, keyed by `METHOD path` with the path parameter names erased. */
export function collectOperations(doc: JsonObject): Map<string, Operation> {
  const result = new Map<string, Operation>();
  for (const [path, item] of Object.entries(isObject(doc.paths) ? doc.paths : {})) {
    if (!isObject(item)) continue;
    const fullPath = `${basePath(doc)}/${path.replace(/^\/+/, '')}`.replace(/(.)\/+$/, '$1');
    for (const method of HTTP_METHODS) {
      const operation = item[method];
      if (!isObject(operation)) continue;
      const byKey = new Map<string, JsonObject>();
      for (const p of [...asArray(item.parameters), ...asArray(operation.parameters)].filter(isObject)) {
        byKey.set(`${String(p.in)}:${String(p.name)}`, p);
      }
      const id = typeof operation.operationId === 'string' ? ` (${operation.operationId})` : '';
      const label = `${method.toUpperCase()} ${fullPath}${id}`;
      const key = `${method.toUpperCase()} ${fullPath.replace(/\{[^}/]+\}/g, '{}')}`;
      result.set(key, { method, fullPath, label, operation, parameters: [...byKey.values()] });
    }
  }
  return result;
}

// Schemas ----------------------------------------------------------------------------------------------

export interface NormalSchema {
  /** Sorted JSON types without 'null'; undefined when the schema does not constrain the type. */
  types?: string[];
  nullable: boolean;
  format?: unknown;
  /** Enum values without null (a `const` counts as a one-value enum). */
  enum?: unknown[];
  fromConst: boolean;
  properties: JsonObject;
  required: Set<string>;
  items?: unknown;
  schema: JsonObject;
}

/** `{type: 'null'}` (3.1), or 3.0's only spelling of null alone: nullable with `enum: [null]`. */
const isNullSchema = (s: unknown): boolean =>
  isObject(s) &&
  (s.type === 'null' ||
    fmt(s.type) === '["null"]' ||
    (s.nullable === true && Array.isArray(s.enum) && s.enum.length === 1 && s.enum[0] === null));

/** One schema object with its `allOf` members merged in and `oneOf/anyOf: [X, null]` read as nullable X. */
function flatten(raw: unknown): JsonObject {
  if (!isObject(raw)) return {};
  const { allOf, anyOf, oneOf, ...own } = raw;
  const alternatives = [...asArray(anyOf), ...asArray(oneOf)];
  const members = [...asArray(allOf), ...alternatives.filter((s) => !isNullSchema(s))].map(flatten);
  if (alternatives.some(isNullSchema)) members.push({ nullable: true });
  const properties = Object.assign({}, ...members.map((m) => m.properties), own.properties) as JsonObject;
  const required = [...members, own].flatMap((m) => asArray(m.required));
  const nullable = [...members, own].some((m) => m.nullable === true);
  return { ...Object.assign({}, ...members), ...own, properties, required, nullable };
}

/** Reads a schema so that the OAS 3.0 and 3.1 spellings of the same thing compare equal. */
export function normaliseSchema(raw: unknown): NormalSchema {
  const schema = flatten(raw);
  const types = [schema.type].flat().filter((t): t is string => typeof t === 'string');
  const values = Array.isArray(schema.enum) ? schema.enum : 'const' in schema ? [schema.const] : undefined;
  return {
    types: types.length > 0 ? types.filter((t) => t !== 'null').sort() : undefined,
    nullable: schema.nullable === true || types.includes('null') || (values?.includes(null) ?? false),
    format: schema.format,
    enum: values?.filter((value) => value !== null),
    fromConst: !Array.isArray(schema.enum) && 'const' in schema,
    properties: schema.properties as JsonObject,
    required: new Set(asArray(schema.required).map(String)),
    items: schema.items,
    schema,
  };
}

const describeTypes = (n: NormalSchema): string =>
  `${n.types ? n.types.join('|') : 'any'}${n.nullable ? '|null' : ''}`;

/** Problems with the schema's own keywords (rule 5 without properties and items). */
function keywordProblems(c: NormalSchema, g: NormalSchema): string[] {
  const problems: string[] = [];
  if (c.types && !(g.types && sameSet(c.types, g.types))) {
    const actual = g.types ? describeTypes(g) : 'unconstrained';
    problems.push(`type is ${describeTypes(c)} in the contract but ${actual} in generated`);
  }
  if (c.nullable !== g.nullable) {
    const difference = c.nullable
      ? 'nullable in the contract but not'
      : 'not nullable in the contract but nullable';
    problems.push(`is ${difference} in generated (${describeTypes(g)})`);
  }
  if (c.format !== undefined && c.format !== g.format) {
    problems.push(`format is "${String(c.format)}" in the contract but ${fmt(g.format)} in generated`);
  }
  const enumClash = c.enum && (g.enum ? !sameSet(c.enum, g.enum) : !c.fromConst);
  if (enumClash) {
    const kind = c.fromConst ? 'const' : 'enum';
    const actual = g.enum ? fmt(g.enum) : 'no enum';
    problems.push(
      `${kind} ${fmt(c.fromConst ? c.enum?.[0] : c.enum)} in the contract but ${actual} in generated`,
    );
  }
  for (const keyword of BOUND_KEYWORDS) {
    const expected = c.schema[keyword];
    if (expected !== undefined && fmt(expected) !== fmt(g.schema[keyword])) {
      problems.push(
        `${keyword} is ${fmt(expected)} in the contract but ${fmt(g.schema[keyword])} in generated`,
      );
    }
  }
  return problems;
}

/** Whether a schema is read by the service (a request body) or written by it (a response body). */
export type SchemaRole = 'request' | 'response' | 'parameter';

/** Problems with one property (rules 3 and 4): presence and required flag, then its schema. */
function propertyProblems(role: SchemaRole, c: NormalSchema, g: NormalSchema, name: string): string[] {
  const [inContract, inGenerated] = [c.required.has(name), g.required.has(name)];
  if (g.properties[name] === undefined) {
    if (inContract) return ['required property is missing in generated'];
    return role === 'request' ? ['optional property is not accepted by generated'] : [];
  }
  if (inContract && !inGenerated) return ['required in the contract but optional in generated'];
  if (role === 'request' && !inContract && inGenerated)
    return ['optional in the contract but required in generated'];
  return [];
}

/** Compares a contract schema with a generated one (rule 5); one line per problem, prefixed by `where`. */
export function compareSchemas(
  role: SchemaRole,
  contract: unknown,
  generated: unknown,
  where: string,
): string[] {
  const [c, g] = [normaliseSchema(contract), normaliseSchema(generated)];
  const at = (path: string) => (message: string) => `${path}: ${message}`;
  const join = (name: string): string => `${where}${where.endsWith(' ') ? '' : '.'}${name}`;
  const problems = keywordProblems(c, g).map(at(where.trimEnd()));
  for (const name of Object.keys(c.properties)) {
    problems.push(...propertyProblems(role, c, g, name).map(at(join(name))));
    if (g.properties[name] !== undefined) {
      problems.push(...compareSchemas(role, c.properties[name], g.properties[name], join(name)));
    }
  }
  const extra = role === 'request' ? [...g.required].filter((name) => !(name in c.properties)) : [];
  problems.push(...extra.map((name) => `${join(name)}: required in generated but not part of the contract`));
  if (c.items !== undefined && g.items === undefined)
    problems.push(at(where.trimEnd())('array items schema is missing in generated'));
  if (c.items !== undefined && g.items !== undefined)
    problems.push(...compareSchemas(role, c.items, g.items, `${where.trimEnd()}[]`));
  return problems;
}

// Documents --------------------------------------------------------------------------------------------

/** The schema of a body's JSON media type; `present: false` when it has no JSON content. */
function jsonSchemaOf(body: unknown): { present: boolean; schema?: unknown } {
  const content = isObject(body) && isObject(body.content) ? body.content : {};
  const media = Object.keys(content).find((type) => /^application\/(?:[\w.+-]+\+)?json\b/i.test(type));
  const entry = media === undefined ? undefined : content[media];
  return {
    present: isObject(entry) && entry.schema !== undefined,
    schema: isObject(entry) ? entry.schema : undefined,
  };
}

const flag = (required: unknown): string => (required === true ? 'required' : 'optional');

/** The generated parameter matching a contract one (rule 2). */
function findParameter(cOp: Operation, gOp: Operation, param: JsonObject): JsonObject | undefined {
  const names = (op: Operation): string[] => [...op.fullPath.matchAll(/\{([^}/]+)\}/g)].map((m) => m[1]);
  const name = param.in === 'path' ? names(gOp)[names(cOp).indexOf(String(param.name))] : String(param.name);
  const same = (p: JsonObject): boolean =>
    p.in === param.in &&
    (p.in === 'header' ? String(p.name).toLowerCase() === name.toLowerCase() : p.name === name);
  return gOp.parameters.find(same);
}

function compareParameters(cOp: Operation, gOp: Operation): string[] {
  const problems: string[] = [];
  const matched = new Set<JsonObject>();
  for (const param of cOp.parameters) {
    const label = `${cOp.label} ${String(param.in)} parameter "${String(param.name)}"`;
    const other = findParameter(cOp, gOp, param);
    if (!other) {
      problems.push(`${label}: missing in generated`);
      continue;
    }
    matched.add(other);
    const required = (p: JsonObject): boolean => p.in === 'path' || p.required === true;
    if (required(param) !== required(other)) {
      problems.push(
        `${label}: ${flag(required(param))} in the contract but ${flag(required(other))} in generated`,
      );
    }
    if (param.schema !== undefined)
      problems.push(...compareSchemas('parameter', param.schema, other.schema, `${label} `));
  }
  for (const other of gOp.parameters.filter(
    (p) => !matched.has(p) && p.required === true && p.in !== 'path',
  )) {
    const label = `${cOp.label} ${String(other.in)} parameter "${String(other.name)}"`;
    problems.push(`${label}: required in generated but not part of the contract`);
  }
  return problems;
}

function compareRequestBodies(cOp: Operation, gOp: Operation): string[] {
  const prefix = `${cOp.label} request body`;
  const [cBody, gBody] = [cOp.operation.requestBody, gOp.operation.requestBody];
  if (!isObject(cBody)) {
    const extra = isObject(gBody) && gBody.required === true;
    return extra ? [`${prefix}: required in generated but the contract has no request body`] : [];
  }
  if (!isObject(gBody)) return [`${prefix}: missing in generated`];
  const problems: string[] = [];
  if (flag(cBody.required) !== flag(gBody.required)) {
    problems.push(
      `${prefix}: ${flag(cBody.required)} in the contract but ${flag(gBody.required)} in generated`,
    );
  }
  const [cJson, gJson] = [jsonSchemaOf(cBody), jsonSchemaOf(gBody)];
  if (!cJson.present) return problems;
  if (!gJson.present) return [...problems, `${prefix}: no application/json schema in generated`];
  return [...problems, ...compareSchemas('request', cJson.schema, gJson.schema, `${prefix} `)];
}

function compareResponses(cOp: Operation, gOp: Operation): string[] {
  const responses = (op: Operation): JsonObject =>
    isObject(op.operation.responses) ? op.operation.responses : {};
  const generated = responses(gOp);
  return Object.entries(responses(cOp)).flatMap(([status, response]) => {
    const prefix = `${cOp.label} response ${status}`;
    if (!(status in generated)) return [`${prefix}: status code missing in generated`];
    const [cJson, gJson] = [jsonSchemaOf(response), jsonSchemaOf(generated[status])];
    if (!cJson.present) return [];
    if (!gJson.present) return [`${prefix}: no application/json body schema in generated`];
    return compareSchemas('response', cJson.schema, gJson.schema, `${prefix} body `);
  });
}

/** Checks that the dereferenced `generated` document conforms to the dereferenced `contract` (rules 1-5). */
export function checkConformance(contract: unknown, generated: unknown): string[] {
  if (!isObject(contract) || !isObject(contract.paths))
    return ['contract: not an OpenAPI document (no paths)'];
  if (!isObject(generated) || !isObject(generated.paths))
    return ['generated: not an OpenAPI document (no paths)'];
  const generatedOps = collectOperations(generated);
  return [...collectOperations(contract)].flatMap(([key, cOp]) => {
    const gOp = generatedOps.get(key);
    if (!gOp) return [`${cOp.label}: operation missing in generated`];
    return [...compareParameters(cOp, gOp), ...compareRequestBodies(cOp, gOp), ...compareResponses(cOp, gOp)];
  });
}
