/**
 * Conformance of a generated OpenAPI document (e.g. from @nestjs/swagger, OAS 3.0 or 3.1) against the
 * hand-written contract of record (openapi/taste-profile.v1.yaml, OAS 3.1).
 *
 * Everything here is pure and synchronous: the functions take plain (parsed, optionally dereferenced)
 * documents and return human-readable problem lines. Local `$ref`s (`#/...`) are resolved on the fly, so
 * the documents do not have to be dereferenced first; circular references are tolerated.
 *
 * Rules (the contract is the reference; the generated document may add things):
 * - every contract operation (method + server base path + path, path parameters compared by position)
 *   exists in the generated document;
 * - parameters: same name (path parameters: same position), location, required flag, type, enum, format,
 *   minimum/maximum, minLength/maxLength; the generated document must not require extra parameters;
 * - request body: same presence and `required` flag, same JSON schema (all contract properties accepted,
 *   required sets equal);
 * - responses: every contract status code is present; for JSON bodies every contract-required property
 *   exists and is required; types (incl. nullability), enum values (as sets), formats, array items
 *   (recursively) and maxItems/minItems/maxLength/minLength/minimum/maximum match where the contract sets
 *   them. Optional contract properties are compared when the generated document declares them.
 * Descriptions, examples, tags and extra operations/optional properties are ignored.
 *
 * Schema normalisation makes OAS 3.0 and 3.1 spellings compare equal: `nullable: true` and
 * `type: [T, 'null']`, `anyOf/oneOf: [X, {type: 'null'}]`, `allOf` (merged), `null` inside `enum`.
 */

export type JsonObject = Record<string, unknown>;

export const HTTP_METHODS = ['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace'] as const;
export type HttpMethod = (typeof HTTP_METHODS)[number];

/** Numeric/length keywords compared whenever the contract sets them. */
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
type BoundKeyword = (typeof BOUND_KEYWORDS)[number];

export function isObject(value: unknown): value is JsonObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function asArray(value: unknown): unknown[] {
  return Array.isArray(value) ? value : [];
}

function asString(value: unknown): string | undefined {
  return typeof value === 'string' ? value : undefined;
}

// ---------------------------------------------------------------------------------------------------------
// References and paths
// ---------------------------------------------------------------------------------------------------------

/** Resolves a local JSON pointer (`#/components/schemas/X`) inside `root`. */
export function resolvePointer(root: unknown, ref: string): unknown {
  if (!ref.startsWith('#')) {
    throw new Error(`Only local $ref values are supported, got "${ref}"`);
  }
  const parts = ref
    .slice(1)
    .split('/')
    .filter((part, index) => !(index === 0 && part === ''))
    .map((part) => decodeURIComponent(part).replace(/~1/g, '/').replace(/~0/g, '~'));
  let node: unknown = root;
  for (const part of parts) {
    if (Array.isArray(node) && /^\d+$/.test(part)) {
      node = node[Number(part)];
    } else if (isObject(node) && part in node) {
      node = node[part];
    } else {
      throw new Error(`Unresolvable $ref "${ref}"`);
    }
  }
  return node;
}

/**
 * Follows `$ref` chains. For a reference object with siblings (allowed in OAS 3.1) the siblings are kept
 * and override the target's keywords.
 */
export function deref(root: unknown, node: unknown): unknown {
  let current = node;
  const visited = new Set<string>();
  while (isObject(current) && typeof current.$ref === 'string') {
    const ref = current.$ref;
    if (visited.has(ref)) {
      throw new Error(`Circular $ref chain at "${ref}"`);
    }
    visited.add(ref);
    const { $ref: _ref, ...siblings } = current;
    const target = resolvePointer(root, ref);
    const meaningful = Object.keys(siblings).filter((key) => !['description', 'summary'].includes(key));
    current = meaningful.length > 0 && isObject(target) ? { ...target, ...siblings } : target;
  }
  return current;
}

/** Path of the first server URL (`/api/v1/org`), or '' when the document declares no servers. */
export function serverBasePath(doc: unknown): string {
  if (!isObject(doc)) return '';
  const first = asArray(doc.servers)[0];
  const url = isObject(first) ? asString(first.url) : undefined;
  if (!url) return '';
  let path = url;
  if (/^[a-z][a-z0-9+.-]*:\/\//i.test(url)) {
    try {
      path = new URL(url).pathname;
    } catch {
      path = url.replace(/^[a-z][a-z0-9+.-]*:\/\/[^/]*/i, '');
    }
  }
  return trimSlashes(path);
}

function trimSlashes(path: string): string {
  const trimmed = path.replace(/\/+$/, '');
  if (trimmed === '') return '';
  return trimmed.startsWith('/') ? trimmed : `/${trimmed}`;
}

/** Joins a server base path and a path template: ('/api/v1/org', '/cores') -> '/api/v1/org/cores'. */
export function joinPath(base: string, path: string): string {
  const joined = `${trimSlashes(base)}/${path.replace(/^\/+/, '')}`;
  return trimSlashes(joined) || '/';
}

/** Canonical key of a path template: parameter names are erased, so `/cores/{id}` == `/cores/{coreId}`. */
export function pathKey(fullPath: string): string {
  return fullPath.replace(/\{[^}/]+\}/g, '{}');
}

/** Names of the path parameters of a template, in order of appearance. */
export function pathParamNames(template: string): string[] {
  return [...template.matchAll(/\{([^}/]+)\}/g)].map((match) => match[1]);
}

// ---------------------------------------------------------------------------------------------------------
// Operations
// ---------------------------------------------------------------------------------------------------------

export interface OperationRef {
  method: HttpMethod;
  /** Path template as written in the document. */
  path: string;
  /** Server base path + path template. */
  fullPath: string;
  key: string;
  operationId?: string;
  operation: JsonObject;
  pathItem: JsonObject;
}

/** All operations of a document, keyed by `METHOD canonical-full-path`. */
export function collectOperations(doc: unknown): Map<string, OperationRef> {
  const result = new Map<string, OperationRef>();
  if (!isObject(doc) || !isObject(doc.paths)) return result;
  const base = serverBasePath(doc);
  for (const [path, rawItem] of Object.entries(doc.paths)) {
    const pathItem = deref(doc, rawItem);
    if (!isObject(pathItem)) continue;
    for (const method of HTTP_METHODS) {
      const operation = pathItem[method];
      if (!isObject(operation)) continue;
      const fullPath = joinPath(base, path);
      const key = `${method.toUpperCase()} ${pathKey(fullPath)}`;
      result.set(key, {
        method,
        path,
        fullPath,
        key,
        operationId: asString(operation.operationId),
        operation,
        pathItem,
      });
    }
  }
  return result;
}

export interface ParameterInfo {
  name: string;
  in: string;
  required: boolean;
  schema: unknown;
}

/** Effective parameters of an operation (path-item parameters overridden by operation parameters). */
export function operationParameters(doc: unknown, op: OperationRef): ParameterInfo[] {
  const byKey = new Map<string, ParameterInfo>();
  for (const raw of [...asArray(op.pathItem.parameters), ...asArray(op.operation.parameters)]) {
    const param = deref(doc, raw);
    if (!isObject(param)) continue;
    const name = asString(param.name);
    const location = asString(param.in);
    if (!name || !location) continue;
    let schema: unknown = param.schema;
    if (schema === undefined && isObject(param.content)) {
      const first = Object.values(param.content)[0];
      schema = isObject(first) ? first.schema : undefined;
    }
    byKey.set(`${location}:${name}`, {
      name,
      in: location,
      required: location === 'path' ? true : param.required === true,
      schema,
    });
  }
  return [...byKey.values()];
}

// ---------------------------------------------------------------------------------------------------------
// Schema normalisation
// ---------------------------------------------------------------------------------------------------------

export interface NormalSchema {
  /** Sorted JSON types without 'null'; undefined when the schema does not constrain the type. */
  types?: string[];
  nullable: boolean;
  format?: string;
  /** Enum values without null. */
  enum?: unknown[];
  hasConst: boolean;
  const?: unknown;
  properties: Map<string, unknown>;
  required: Set<string>;
  items?: unknown;
  bounds: Partial<Record<BoundKeyword, unknown>>;
  /** Remaining non-null alternatives of anyOf/oneOf when there is more than one. */
  variants?: unknown[];
}

function emptyNormal(): NormalSchema {
  return { nullable: false, hasConst: false, properties: new Map(), required: new Set(), bounds: {} };
}

function isNullSchema(root: unknown, raw: unknown): boolean {
  const schema = deref(root, raw);
  if (!isObject(schema)) return false;
  if (schema.type === 'null') return true;
  if (Array.isArray(schema.type) && schema.type.length === 1 && schema.type[0] === 'null') return true;
  return 'const' in schema && schema.const === null && schema.type === undefined;
}

/** Merges `extra` into `target` (allOf semantics, lenient: first defined keyword wins). */
function mergeInto(target: NormalSchema, extra: NormalSchema): void {
  if (target.types === undefined) target.types = extra.types;
  else if (extra.types !== undefined) target.types = target.types.filter((t) => extra.types?.includes(t));
  target.nullable = target.nullable || extra.nullable;
  target.format ??= extra.format;
  target.enum ??= extra.enum;
  if (!target.hasConst && extra.hasConst) {
    target.hasConst = true;
    target.const = extra.const;
  }
  for (const [name, schema] of extra.properties) {
    if (!target.properties.has(name)) target.properties.set(name, schema);
  }
  for (const name of extra.required) target.required.add(name);
  target.items ??= extra.items;
  for (const keyword of BOUND_KEYWORDS) {
    if (target.bounds[keyword] === undefined && extra.bounds[keyword] !== undefined) {
      target.bounds[keyword] = extra.bounds[keyword];
    }
  }
  target.variants ??= extra.variants;
}

/**
 * Normalises a (possibly referenced) schema so that OAS 3.0 and 3.1 spellings of the same thing compare
 * equal. Nested property and item schemas are kept raw and normalised when compared.
 */
export function normaliseSchema(root: unknown, raw: unknown, depth = 0): NormalSchema {
  const result = emptyNormal();
  if (depth > 32) return result;
  const schema = deref(root, raw);
  if (!isObject(schema)) return result;

  // Own keywords.
  const rawTypes = Array.isArray(schema.type)
    ? schema.type.filter((t): t is string => typeof t === 'string')
    : typeof schema.type === 'string'
      ? [schema.type]
      : undefined;
  if (rawTypes) {
    if (rawTypes.includes('null')) result.nullable = true;
    result.types = rawTypes.filter((t) => t !== 'null').sort();
  }
  if (schema.nullable === true) result.nullable = true;
  result.format = asString(schema.format);
  if (Array.isArray(schema.enum)) {
    if (schema.enum.includes(null)) result.nullable = true;
    result.enum = schema.enum.filter((value) => value !== null);
  }
  if ('const' in schema) {
    if (schema.const === null) result.nullable = true;
    else {
      result.hasConst = true;
      result.const = schema.const;
    }
  }
  if (isObject(schema.properties)) {
    for (const [name, prop] of Object.entries(schema.properties)) result.properties.set(name, prop);
  }
  for (const name of asArray(schema.required)) {
    if (typeof name === 'string') result.required.add(name);
  }
  if (schema.items !== undefined && !Array.isArray(schema.items)) result.items = schema.items;
  for (const keyword of BOUND_KEYWORDS) {
    if (schema[keyword] !== undefined) result.bounds[keyword] = schema[keyword];
  }

  // allOf: merge every member.
  for (const member of asArray(schema.allOf)) {
    mergeInto(result, normaliseSchema(root, member, depth + 1));
  }

  // anyOf / oneOf: null members mean nullable; a single remaining member is merged.
  for (const keyword of ['anyOf', 'oneOf'] as const) {
    const members = asArray(schema[keyword]);
    if (members.length === 0) continue;
    const nonNull = members.filter((member) => !isNullSchema(root, member));
    if (nonNull.length < members.length) result.nullable = true;
    if (nonNull.length === 1) {
      mergeInto(result, normaliseSchema(root, nonNull[0], depth + 1));
    } else if (nonNull.length > 1) {
      const normals = nonNull.map((member) => normaliseSchema(root, member, depth + 1));
      if (result.types === undefined && normals.every((n) => n.types !== undefined)) {
        result.types = [...new Set(normals.flatMap((n) => n.types ?? []))].sort();
      }
      if (normals.some((n) => n.nullable)) result.nullable = true;
      result.variants = nonNull;
    }
  }

  // Implied types.
  if (result.types === undefined) {
    if (result.properties.size > 0) result.types = ['object'];
    else if (result.items !== undefined) result.types = ['array'];
  }
  return result;
}

// ---------------------------------------------------------------------------------------------------------
// Schema comparison
// ---------------------------------------------------------------------------------------------------------

/** How a schema is used: request bodies must accept exactly what the contract accepts. */
export type SchemaRole = 'request' | 'response' | 'parameter';

export interface CompareContext {
  contractRoot: unknown;
  generatedRoot: unknown;
  role: SchemaRole;
  problems: string[];
  /** Prefix of every problem line (e.g. `GET /api/v1/org/cores/{id} (getCore) response 200`). */
  prefix: string;
  seen?: Map<unknown, Set<unknown>>;
}

function describeTypes(n: NormalSchema): string {
  const base = n.types ? n.types.join('|') : 'any';
  return n.nullable ? `${base}|null` : base;
}

function sameSet(a: unknown[], b: unknown[]): boolean {
  const key = (value: unknown): string => JSON.stringify(value);
  const left = new Set(a.map(key));
  const right = new Set(b.map(key));
  return left.size === right.size && [...left].every((value) => right.has(value));
}

function fmt(value: unknown): string {
  return JSON.stringify(value);
}

/** Compares a contract schema with a generated schema; appends problem lines to `ctx.problems`. */
export function compareSchemas(
  ctx: CompareContext,
  contractRaw: unknown,
  generatedRaw: unknown,
  where: string,
): void {
  const seen = (ctx.seen ??= new Map());
  const contractNode = deref(ctx.contractRoot, contractRaw);
  const generatedNode = deref(ctx.generatedRoot, generatedRaw);
  if (isObject(contractNode) && isObject(generatedNode)) {
    const partners = seen.get(contractNode) ?? new Set<unknown>();
    if (partners.has(generatedNode)) return;
    partners.add(generatedNode);
    seen.set(contractNode, partners);
  }
  const report = (message: string): void => {
    ctx.problems.push(`${ctx.prefix}${where ? ` ${where}` : ''}: ${message}`);
  };
  const c = normaliseSchema(ctx.contractRoot, contractRaw);
  const g = normaliseSchema(ctx.generatedRoot, generatedRaw);

  if (c.types !== undefined) {
    if (g.types === undefined) {
      report(`type is ${describeTypes(c)} in the contract but unconstrained in generated`);
    } else if (!sameSet(c.types, g.types)) {
      report(`type is ${describeTypes(c)} in the contract but ${describeTypes(g)} in generated`);
    }
  }
  if (c.nullable !== g.nullable) {
    report(
      c.nullable
        ? `is nullable in the contract but not in generated (${describeTypes(g)})`
        : `is not nullable in the contract but nullable in generated (${describeTypes(g)})`,
    );
  }
  if (c.format !== undefined && c.format !== g.format) {
    report(
      `format is "${c.format}" in the contract but ${g.format ? `"${g.format}"` : 'absent'} in generated`,
    );
  }
  if (c.enum !== undefined) {
    const generatedValues = g.enum ?? (g.hasConst ? [g.const] : undefined);
    if (generatedValues === undefined) {
      report(`enum ${fmt(c.enum)} in the contract but no enum in generated`);
    } else if (!sameSet(c.enum, generatedValues)) {
      report(`enum ${fmt(c.enum)} in the contract but ${fmt(generatedValues)} in generated`);
    }
  } else if (c.hasConst) {
    // Lenient: generators rarely emit `const`; only a contradicting declaration is a problem.
    const generatedValues = g.enum ?? (g.hasConst ? [g.const] : undefined);
    if (generatedValues !== undefined && !sameSet([c.const], generatedValues)) {
      report(`const ${fmt(c.const)} in the contract but ${fmt(generatedValues)} in generated`);
    }
  }
  for (const keyword of BOUND_KEYWORDS) {
    const expected = c.bounds[keyword];
    if (expected !== undefined && fmt(expected) !== fmt(g.bounds[keyword])) {
      const actual = g.bounds[keyword];
      report(
        `${keyword} is ${fmt(expected)} in the contract but ${actual === undefined ? 'absent' : fmt(actual)} in generated`,
      );
    }
  }

  // Object properties.
  const join = (name: string): string => (where ? `${where}.${name}` : name);
  for (const [name, contractProp] of c.properties) {
    const contractRequired = c.required.has(name);
    const generatedProp = g.properties.get(name);
    const generatedRequired = g.required.has(name);
    if (generatedProp === undefined) {
      if (contractRequired) {
        ctx.problems.push(`${ctx.prefix} ${join(name)}: required property is missing in generated`);
      } else if (ctx.role === 'request') {
        ctx.problems.push(`${ctx.prefix} ${join(name)}: optional property is not accepted by generated`);
      }
      continue;
    }
    if (contractRequired && !generatedRequired) {
      ctx.problems.push(`${ctx.prefix} ${join(name)}: required in the contract but optional in generated`);
    }
    if (ctx.role === 'request' && !contractRequired && generatedRequired) {
      ctx.problems.push(`${ctx.prefix} ${join(name)}: optional in the contract but required in generated`);
    }
    compareSchemas(ctx, contractProp, generatedProp, join(name));
  }
  if (ctx.role === 'request') {
    for (const name of g.required) {
      if (!c.properties.has(name)) {
        ctx.problems.push(`${ctx.prefix} ${join(name)}: required in generated but not part of the contract`);
      }
    }
  }

  // Array items.
  if (c.items !== undefined) {
    if (g.items === undefined) {
      report('array items schema is missing in generated');
    } else {
      compareSchemas(ctx, c.items, g.items, `${where}[]`);
    }
  }
}

// ---------------------------------------------------------------------------------------------------------
// Document comparison
// ---------------------------------------------------------------------------------------------------------

const JSON_MEDIA = /^application\/(?:[\w.+-]+\+)?json\b/i;

function jsonSchemaOf(root: unknown, rawContainer: unknown): { present: boolean; schema?: unknown } {
  const container = deref(root, rawContainer);
  if (!isObject(container) || !isObject(container.content)) return { present: false };
  for (const [media, entry] of Object.entries(container.content)) {
    if (JSON_MEDIA.test(media) && isObject(entry)) {
      return { present: true, schema: entry.schema };
    }
  }
  return { present: false };
}

function describeOperation(op: OperationRef): string {
  return `${op.method.toUpperCase()} ${op.fullPath}${op.operationId ? ` (${op.operationId})` : ''}`;
}

function compareParameters(
  contract: unknown,
  generated: unknown,
  cOp: OperationRef,
  gOp: OperationRef,
  problems: string[],
): void {
  const prefix = describeOperation(cOp);
  const cParams = operationParameters(contract, cOp);
  const gParams = operationParameters(generated, gOp);
  const cPathNames = pathParamNames(cOp.fullPath);
  const gPathNames = pathParamNames(gOp.fullPath);
  const findGenerated = (param: ParameterInfo): ParameterInfo | undefined => {
    if (param.in === 'path') {
      const position = cPathNames.indexOf(param.name);
      const generatedName = position >= 0 ? gPathNames[position] : param.name;
      return gParams.find((p) => p.in === 'path' && p.name === generatedName);
    }
    const lower = param.in === 'header' ? param.name.toLowerCase() : param.name;
    return gParams.find(
      (p) => p.in === param.in && (p.in === 'header' ? p.name.toLowerCase() : p.name) === lower,
    );
  };
  const matched = new Set<ParameterInfo>();
  for (const param of cParams) {
    if (
      param.in === 'header' &&
      ['authorization', 'accept', 'content-type'].includes(param.name.toLowerCase())
    ) {
      continue;
    }
    const label = `${param.in} parameter "${param.name}"`;
    const other = findGenerated(param);
    if (!other) {
      problems.push(`${prefix} ${label}: missing in generated`);
      continue;
    }
    matched.add(other);
    if (param.required !== other.required) {
      problems.push(
        `${prefix} ${label}: ${param.required ? 'required' : 'optional'} in the contract but ${other.required ? 'required' : 'optional'} in generated`,
      );
    }
    if (param.schema !== undefined) {
      if (other.schema === undefined) {
        problems.push(`${prefix} ${label}: schema missing in generated`);
      } else {
        compareSchemas(
          {
            contractRoot: contract,
            generatedRoot: generated,
            role: 'parameter',
            problems,
            prefix: `${prefix} ${label}`,
          },
          param.schema,
          other.schema,
          '',
        );
      }
    }
  }
  for (const other of gParams) {
    if (!matched.has(other) && other.required && other.in !== 'path') {
      problems.push(
        `${prefix} ${other.in} parameter "${other.name}": required in generated but not part of the contract`,
      );
    }
  }
}

function compareRequestBodies(
  contract: unknown,
  generated: unknown,
  cOp: OperationRef,
  gOp: OperationRef,
  problems: string[],
): void {
  const prefix = `${describeOperation(cOp)} request body`;
  const cBody = deref(contract, cOp.operation.requestBody);
  const gBody = deref(generated, gOp.operation.requestBody);
  if (!isObject(cBody)) {
    if (isObject(gBody) && gBody.required === true) {
      problems.push(`${prefix}: required in generated but the contract has no request body`);
    }
    return;
  }
  if (!isObject(gBody)) {
    problems.push(`${prefix}: missing in generated`);
    return;
  }
  const cRequired = cBody.required === true;
  const gRequired = gBody.required === true;
  if (cRequired !== gRequired) {
    problems.push(
      `${prefix}: ${cRequired ? 'required' : 'optional'} in the contract but ${gRequired ? 'required' : 'optional'} in generated`,
    );
  }
  const cJson = jsonSchemaOf(contract, cBody);
  if (!cJson.present || cJson.schema === undefined) return;
  const gJson = jsonSchemaOf(generated, gBody);
  if (!gJson.present || gJson.schema === undefined) {
    problems.push(`${prefix}: no application/json schema in generated`);
    return;
  }
  compareSchemas(
    { contractRoot: contract, generatedRoot: generated, role: 'request', problems, prefix },
    cJson.schema,
    gJson.schema,
    '',
  );
}

function compareResponses(
  contract: unknown,
  generated: unknown,
  cOp: OperationRef,
  gOp: OperationRef,
  problems: string[],
): void {
  const cResponses = isObject(cOp.operation.responses) ? cOp.operation.responses : {};
  const gResponses = isObject(gOp.operation.responses) ? gOp.operation.responses : {};
  for (const [status, cResponse] of Object.entries(cResponses)) {
    const prefix = `${describeOperation(cOp)} response ${status}`;
    if (!(status in gResponses)) {
      problems.push(`${prefix}: status code missing in generated`);
      continue;
    }
    const cJson = jsonSchemaOf(contract, cResponse);
    if (!cJson.present || cJson.schema === undefined) continue;
    const gJson = jsonSchemaOf(generated, gResponses[status]);
    if (!gJson.present || gJson.schema === undefined) {
      problems.push(`${prefix}: no application/json body schema in generated`);
      continue;
    }
    compareSchemas(
      {
        contractRoot: contract,
        generatedRoot: generated,
        role: 'response',
        problems,
        prefix: `${prefix} body`,
      },
      cJson.schema,
      gJson.schema,
      '',
    );
  }
}

/**
 * Checks that `generated` conforms to `contract`. Returns one readable line per problem (empty when the
 * generated document conforms).
 */
export function checkConformance(contract: unknown, generated: unknown): string[] {
  const problems: string[] = [];
  if (!isObject(contract) || !isObject(contract.paths)) {
    return ['contract: not an OpenAPI document (no paths)'];
  }
  if (!isObject(generated) || !isObject(generated.paths)) {
    return ['generated: not an OpenAPI document (no paths)'];
  }
  const cOps = collectOperations(contract);
  const gOps = collectOperations(generated);
  for (const [key, cOp] of cOps) {
    const gOp = gOps.get(key);
    if (!gOp) {
      problems.push(`${describeOperation(cOp)}: operation missing in generated`);
      continue;
    }
    compareParameters(contract, generated, cOp, gOp, problems);
    compareRequestBodies(contract, generated, cOp, gOp, problems);
    compareResponses(contract, generated, cOp, gOp, problems);
  }
  return problems;
}
