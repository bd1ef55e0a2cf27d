/**
 * Response validation against the contract of record (openapi/taste-profile.v1.yaml) for e2e tests.
 *
 *   assertMatchesContract('GET', '/api/v1/org/cores/abc123', res.status, res.body);
 *
 * The operation is found by method and concrete URL path (query string stripped; the contract's server base
 * path `/api/v1/org` is prefixed to its path templates). The response schema for the status is validated with
 * Ajv (JSON Schema 2020-12, as used by OpenAPI 3.1). A status the operation does not document (and no
 * `default` response) is itself a failure. The document is loaded and schemas compiled lazily, then cached.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import Ajv2020, { type ErrorObject, type ValidateFunction } from 'ajv/dist/2020';
import addFormats from 'ajv-formats';
import { parse } from 'yaml';

export const CONTRACT_FILE = path.resolve(__dirname, '../../openapi/taste-profile.v1.yaml');

const CONTRACT_ID = 'urn:taste-profile:contract';
const METHODS = ['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace'];

type JsonObject = Record<string, unknown>;

function isObject(value: unknown): value is JsonObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

export interface ContractPath {
  method: string;
  /** Path template as written in the contract (`/cores/{id}`). */
  template: string;
  /** Server base path + template (`/api/v1/org/cores/{id}`). */
  fullPath: string;
  operationId?: string;
  statuses: string[];
}

interface Route extends ContractPath {
  regex: RegExp;
  literalSegments: number;
  responses: JsonObject;
}

interface Loaded {
  doc: JsonObject;
  ajv: Ajv2020;
  routes: Route[];
  validators: Map<string, ValidateFunction | null>;
}

let cache: Loaded | undefined;

function escapeRegex(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

function basePathOf(doc: JsonObject): string {
  const first = Array.isArray(doc.servers) ? doc.servers[0] : undefined;
  const url = isObject(first) && typeof first.url === 'string' ? first.url : '';
  const pathname = /^[a-z][a-z0-9+.-]*:\/\//i.test(url) ? new URL(url).pathname : url;
  return pathname.replace(/\/+$/, '');
}

function load(): Loaded {
  if (cache) return cache;
  const parsed: unknown = parse(fs.readFileSync(CONTRACT_FILE, 'utf8'));
  if (!isObject(parsed) || !isObject(parsed.paths)) {
    throw new Error(`${CONTRACT_FILE} is not an OpenAPI document`);
  }
  const doc = parsed;
  const base = basePathOf(doc);
  const routes: Route[] = [];
  for (const [template, item] of Object.entries(parsed.paths)) {
    if (!isObject(item)) continue;
    const fullPath = `${base}/${template.replace(/^\/+/, '')}`.replace(/\/+$/, '') || '/';
    const segments = fullPath.split('/').filter(Boolean);
    const pattern = segments
      .map((segment) => (/^\{[^}]+\}$/.test(segment) ? '[^/]+' : escapeRegex(segment)))
      .join('/');
    const regex = new RegExp(`^/${pattern}/?$`);
    const literalSegments = segments.filter((segment) => !segment.startsWith('{')).length;
    for (const method of METHODS) {
      const operation = item[method];
      if (!isObject(operation)) continue;
      const responses = isObject(operation.responses) ? operation.responses : {};
      routes.push({
        method: method.toUpperCase(),
        template,
        fullPath,
        operationId: typeof operation.operationId === 'string' ? operation.operationId : undefined,
        statuses: Object.keys(responses),
        regex,
        literalSegments,
        responses,
      });
    }
  }
  // Most specific first: `/cores/search` would win over `/cores/{id}`.
  routes.sort((a, b) => b.literalSegments - a.literalSegments);

  const ajv = new Ajv2020({ strict: false, allErrors: true });
  addFormats(ajv);
  // The whole document is registered so that `#/components/...` references resolve against it.
  ajv.addSchema({ ...doc, $id: CONTRACT_ID });
  cache = { doc, ajv, routes, validators: new Map() };
  return cache;
}

function pointerEscape(token: string): string {
  return encodeURIComponent(token.replace(/~/g, '~0').replace(/\//g, '~1'));
}

function resolveLocal(doc: JsonObject, node: unknown): { node: unknown; pointer?: string } {
  let current = node;
  let pointer: string | undefined;
  for (let hops = 0; hops < 16 && isObject(current) && typeof current.$ref === 'string'; hops += 1) {
    const ref = current.$ref;
    if (!ref.startsWith('#/')) throw new Error(`Unsupported $ref ${ref}`);
    pointer = ref.slice(1);
    let target: unknown = doc;
    for (const raw of ref.slice(2).split('/')) {
      const token = decodeURIComponent(raw).replace(/~1/g, '/').replace(/~0/g, '~');
      target = isObject(target) ? target[token] : undefined;
    }
    current = target;
  }
  return { node: current, pointer };
}

/** Every operation of the contract, with its documented status codes. */
export function contractPaths(): ContractPath[] {
  return load().routes.map(({ method, template, fullPath, operationId, statuses }) => ({
    method,
    template,
    fullPath,
    operationId,
    statuses: [...statuses],
  }));
}

function findRoute(loaded: Loaded, method: string, urlPath: string): Route | undefined {
  const upper = method.toUpperCase();
  let pathname = urlPath.split(/[?#]/)[0];
  if (/^[a-z][a-z0-9+.-]*:\/\//i.test(pathname)) pathname = new URL(pathname).pathname;
  return loaded.routes.find((route) => route.method === upper && route.regex.test(pathname));
}

function formatErrors(errors: ErrorObject[] | null | undefined): string {
  return (errors ?? [])
    .map((error) => {
      const where = error.instancePath || '(root)';
      const extra =
        error.keyword === 'additionalProperties' || error.keyword === 'enum' || error.keyword === 'const'
          ? ` ${JSON.stringify(error.params)}`
          : '';
      return `  - ${where} ${error.message ?? error.keyword}${extra} [${error.schemaPath}]`;
    })
    .join('\n');
}

/**
 * Throws unless `body` matches the contract's response schema for `method` + concrete `path` + `status`.
 * An operation missing from the contract, or a status it does not document, is an error too.
 */
export function assertMatchesContract(method: string, path: string, status: number, body: unknown): void {
  const loaded = load();
  const route = findRoute(loaded, method, path);
  const label = `${method.toUpperCase()} ${path} -> ${status}`;
  if (!route) {
    throw new Error(`${label}: no operation in the contract matches this method and path`);
  }
  const statusKey = String(status);
  const rangeKey = `${statusKey[0]}XX`;
  const responseKey = [statusKey, rangeKey, 'default'].find((key) => key in route.responses);
  if (!responseKey) {
    throw new Error(
      `${label}: status ${status} is not documented for ${route.operationId ?? route.fullPath} (documented: ${route.statuses.join(', ')})`,
    );
  }
  const cacheKey = `${route.method} ${route.template} ${responseKey}`;
  let validate = loaded.validators.get(cacheKey);
  if (validate === undefined) {
    validate = compileResponse(loaded, route, responseKey);
    loaded.validators.set(cacheKey, validate);
  }
  if (validate === null) return; // The contract documents no body for this response.
  if (!validate(body)) {
    throw new Error(
      `${label}: response body does not match the contract (${route.operationId ?? route.template} ${responseKey}):\n` +
        `${formatErrors(validate.errors)}\nbody: ${JSON.stringify(body)?.slice(0, 2000)}`,
    );
  }
}

function compileResponse(loaded: Loaded, route: Route, responseKey: string): ValidateFunction | null {
  const { node: response, pointer: responsePointer } = resolveLocal(loaded.doc, route.responses[responseKey]);
  if (!isObject(response) || !isObject(response.content)) return null;
  const mediaType = Object.keys(response.content).find((media) =>
    /^application\/(?:[\w.+-]+\+)?json/i.test(media),
  );
  if (!mediaType) return null;
  const basePointer =
    responsePointer ??
    `/paths/${pointerEscape(route.template)}/${route.method.toLowerCase()}/responses/${pointerEscape(responseKey)}`;
  const schemaPointer = `${basePointer}/content/${pointerEscape(mediaType)}/schema`;
  return loaded.ajv.compile({ $ref: `${CONTRACT_ID}#${schemaPointer}` });
}

/**
 * Throws unless `body` matches the request body the contract's `webhooks` section documents for `event`
 * (what a receiver generated from the document would accept). An event it does not document is an error.
 */
export function assertMatchesWebhook(event: string, body: unknown): void {
  const loaded = load();
  const webhooks = isObject(loaded.doc.webhooks) ? loaded.doc.webhooks : {};
  if (!isObject(webhooks[event]))
    throw new Error(`webhook ${event}: not documented in the contract's webhooks`);
  const cacheKey = `webhook ${event}`;
  let validate = loaded.validators.get(cacheKey);
  if (!validate) {
    const pointer = `/webhooks/${pointerEscape(event)}/post/requestBody/content/${pointerEscape('application/json')}/schema`;
    validate = loaded.ajv.compile({ $ref: `${CONTRACT_ID}#${pointer}` });
    loaded.validators.set(cacheKey, validate);
  }
  if (!validate(body)) {
    throw new Error(
      `webhook ${event}: body does not match the contract:\n${formatErrors(validate.errors)}\nbody: ${JSON.stringify(body)?.slice(0, 2000)}`,
    );
  }
}

/** The headers X-RateLimit-*, X-Request-Id, Retry-After and WWW-Authenticate: the API's own. */
const OWN_HEADERS = /^(x-ratelimit-|x-request-id$|retry-after$|www-authenticate$|idempotent-replayed$)/i;

/**
 * The response headers the contract documents for `method` + concrete `path` + `status`, lower case
 * (a `$ref`'d response's headers included).
 */
export function documentedHeaders(method: string, path: string, status: number): string[] {
  const loaded = load();
  const route = findRoute(loaded, method, path);
  if (!route) throw new Error(`${method} ${path}: no operation in the contract`);
  const key = [String(status), `${String(status)[0]}XX`, 'default'].find((k) => k in route.responses);
  const { node } = resolveLocal(loaded.doc, key === undefined ? undefined : route.responses[key]);
  if (!isObject(node)) throw new Error(`${method} ${path}: status ${status} is not documented`);
  return Object.keys(isObject(node.headers) ? node.headers : {}).map((h) => h.toLowerCase());
}

function ownHeaders(headers: Record<string, unknown>): string[] {
  return Object.keys(headers)
    .map((h) => h.toLowerCase())
    .filter((h) => OWN_HEADERS.test(h));
}

/**
 * Throws unless every API header the response carries (rate limits, request id, Retry-After,
 * WWW-Authenticate, Idempotent-Replayed) is documented for its operation and status.
 */
export function assertHeadersDocumented(
  method: string,
  path: string,
  status: number,
  headers: Record<string, unknown>,
): void {
  const documented = documentedHeaders(method, path, status);
  const undocumented = ownHeaders(headers).filter((h) => !documented.includes(h));
  if (undocumented.length > 0) {
    throw new Error(
      `${method.toUpperCase()} ${path} -> ${status}: headers not in the contract: ${undocumented.join(', ')}`,
    );
  }
}

/** The API headers the contract documents for this response that it does not carry. */
export function documentedHeadersMissing(
  method: string,
  path: string,
  status: number,
  headers: Record<string, unknown>,
): string[] {
  const sent = ownHeaders(headers);
  return documentedHeaders(method, path, status).filter((h) => !sent.includes(h));
}
