import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import fc from 'fast-check';
import request from 'supertest';
import { createOrgWithKey, OrgWithKey, startTestApp, TestApp } from '../support/app';
import { colourPng, createReadyCore } from '../support/cores';

/**
 * Property-based fuzzing of every operation of the generated OpenAPI document against the real app
 * (real PostgreSQL and Redis, a valid key): bodies, path parameters and query strings generated from
 * the schemas, mixed with hostile values (NUL, huge numbers, nulls, wrong types, deep nesting, long
 * strings). Properties: never a 5xx, and every error body is `{ message, status }` with `status` equal
 * to the HTTP status. Image URLs only ever point at refused hosts, so nothing is fetched.
 */

interface Schema {
  $ref?: string;
  allOf?: Schema[];
  type?: string;
  enum?: unknown[];
  properties?: Record<string, Schema>;
  required?: string[];
  items?: Schema;
  minLength?: number;
  maxLength?: number;
  minimum?: number;
  maximum?: number;
  maxItems?: number;
  format?: string;
  pattern?: string;
}

interface Parameter {
  name: string;
  in: 'path' | 'query' | 'header';
  required?: boolean;
  schema: Schema;
}

interface Operation {
  parameters?: Parameter[];
  requestBody?: { content: Record<string, { schema: Schema }> };
}

const DOC = JSON.parse(readFileSync(join(__dirname, '..', '..', 'openapi', 'generated.json'), 'utf8')) as {
  paths: Record<string, Record<string, Operation>>;
  components: { schemas: Record<string, Schema> };
};

const NUM_RUNS = Number(process.env.FUZZ_RUNS ?? 60);

function resolve(schema: Schema): Schema {
  if (schema.$ref) return resolve(DOC.components.schemas[schema.$ref.split('/').pop() as string]);
  if (schema.allOf?.length === 1) return { ...schema, ...resolve(schema.allOf[0]), allOf: undefined };
  return schema;
}

/** Values no schema allows, and values that have broken parsers and databases before. */
const hostileScalar: fc.Arbitrary<unknown> = fc.oneof(
  fc.constant(null),
  fc.constant(''),
  fc.constant('a\u0000b'),
  fc.constant('\u0000'),
  fc.constant('\ud800'),
  fc.constant(1e20),
  fc.constant(-1e308),
  fc.constant(-1),
  fc.constant(0),
  fc.constant(2 ** 63),
  fc.constant(true),
  fc.constant('1e20'),
  fc.constant('NaN'),
  fc.constant('x'.repeat(10_000)),
  fc.constant({ $gt: '' }),
  fc.constant(['a', 1, null]),
  fc.string({ unit: 'binary', maxLength: 40 }),
  fc.integer(),
  fc.double(),
);

/** Nested arrays/objects around a value, sometimes deeper than the 64 levels the parser accepts. */
const deep: fc.Arbitrary<unknown> = fc
  .tuple(fc.integer({ min: 1, max: 120 }), fc.boolean())
  .map(([depth, objects]) => {
    let v: unknown = 'leaf';
    for (let i = 0; i < depth; i++) v = objects ? { a: v } : [v];
    return v;
  });

const hostile: fc.Arbitrary<unknown> = fc.oneof(
  { weight: 5, arbitrary: hostileScalar },
  { weight: 1, arbitrary: deep },
);

/** Image references that are never fetched: loopback, private, link-local or non-https. */
const refusedUrl = fc.constantFrom(
  'https://127.0.0.1/look.png',
  'https://10.0.0.7/look.jpg',
  'https://169.254.169.254/latest/meta-data',
  'http://images.example.com/look.jpg',
  'https://[::1]/x.png',
  'ftp://example.com/x.png',
  'https://0x7f.1/x.png',
);

let validImage = '';

function fromSchema(input: Schema, name = ''): fc.Arbitrary<unknown> {
  const schema = resolve(input);
  if (schema.enum) return fc.constantFrom(...schema.enum);
  switch (schema.type) {
    case 'string': {
      if (schema.format === 'uri') return refusedUrl;
      if (schema.pattern?.startsWith('^data:image')) {
        return fc.oneof(
          fc.constant(validImage),
          fc.constant('data:image/png;base64,AAAA'),
          fc.constant('data:image/svg+xml;base64,PHN2Zy8+'),
          fc.string({ maxLength: 50 }).map((s) => `data:image/png;base64,${s}`),
        );
      }
      return fc.string({ minLength: schema.minLength ?? 0, maxLength: Math.min(schema.maxLength ?? 60, 60) });
    }
    case 'integer':
      return fc.integer({ min: schema.minimum ?? -1000, max: schema.maximum ?? 1000 });
    case 'number':
      return fc.double({ min: schema.minimum ?? -1e6, max: schema.maximum ?? 1e6, noNaN: true });
    case 'boolean':
      return fc.boolean();
    case 'array':
      return fc.array(valueOrHostile(schema.items ?? {}, name), { maxLength: (schema.maxItems ?? 5) + 1 });
    case 'object':
    default:
      return objectFrom(schema);
  }
}

function valueOrHostile(schema: Schema, name: string): fc.Arbitrary<unknown> {
  return fc.oneof({ weight: 3, arbitrary: fromSchema(schema, name) }, { weight: 1, arbitrary: hostile });
}

function objectFrom(schema: Schema): fc.Arbitrary<unknown> {
  const props = Object.entries(schema.properties ?? {});
  const record = fc.record(Object.fromEntries(props.map(([k, s]) => [k, valueOrHostile(s, k)])), {
    requiredKeys: [],
  });
  const withExtra = fc
    .tuple(record, fc.option(fc.dictionary(fc.string({ maxLength: 10 }), hostileScalar, { maxKeys: 2 })))
    .map(([r, extra]) => ({ ...(extra ?? {}), ...r }));
  return fc.oneof({ weight: 8, arbitrary: withExtra }, { weight: 1, arbitrary: hostile });
}

function pathValue(ids: string[]): fc.Arbitrary<string> {
  return fc.oneof(
    fc.constantFrom(...ids),
    fc.uuid(),
    fc.constantFrom(
      '0',
      '-1',
      '1e20',
      'null',
      '%00',
      'a%00b',
      '..%2F..%2Fetc',
      'x'.repeat(2000),
      '%F0%9F%98%80',
    ),
    fc.string({ minLength: 1, maxLength: 40 }).map(encodeURIComponent),
  );
}

function queryValue(schema: Schema): fc.Arbitrary<string> {
  return fc.oneof(
    fromSchema(schema).map(String),
    fc.constantFrom(
      '1e20',
      '99999999999999999999',
      '-5',
      '0',
      '1.5',
      'abc',
      '',
      '\u0000',
      'null',
      '[]',
      'x'.repeat(5000),
    ),
  );
}

interface FuzzRequest {
  path: string;
  query: Partial<Record<string, string>>;
  body: unknown;
  sendBody: boolean;
}

function operationArbitrary(path: string, op: Operation, ids: string[]): fc.Arbitrary<FuzzRequest> {
  const params = op.parameters ?? [];
  const pathParams = params.filter((p) => p.in === 'path');
  const queryParams = params.filter((p) => p.in === 'query');
  const bodySchema = op.requestBody?.content['application/json']?.schema;
  return fc.record({
    path: fc
      .tuple(...pathParams.map(() => pathValue(ids)))
      .map((values) => pathParams.reduce((acc, p, i) => acc.replace(`{${p.name}}`, values[i]), path)),
    query: fc.record(Object.fromEntries(queryParams.map((p) => [p.name, queryValue(p.schema)])), {
      requiredKeys: [],
    }),
    body: bodySchema ? fromSchema(bodySchema) : fc.oneof(fc.constant(undefined), hostile),
    sendBody: fc.boolean(),
  });
}

/**
 * Always tried first, whatever the seed: one hostile value at a time in each query parameter and
 * body property (the inputs that answered 500 before: NUL, null, 1e20).
 */
function knownHostile(path: string, op: Operation): FuzzRequest[] {
  const target = path.replace(/\{[^}]+\}/g, () => fuzzIds[0] ?? 'x');
  const out: FuzzRequest[] = [];
  for (const p of (op.parameters ?? []).filter((q) => q.in === 'query')) {
    for (const v of ['1e20', 'a\u0000b', '-1', ''])
      out.push({ path: target, query: { [p.name]: v }, body: undefined, sendBody: false });
  }
  const schema = op.requestBody ? resolve(op.requestBody.content['application/json'].schema) : undefined;
  for (const prop of Object.keys(schema?.properties ?? {})) {
    for (const v of [null, 'a\u0000b', 1e20, ['a\u0000b']]) {
      const base: Record<string, unknown> = prop === 'images' ? {} : { images: [validImage] };
      if (prop !== 'name' && schema?.required?.includes('name')) base.name = 'n';
      out.push({ path: target, query: {}, body: { ...base, [prop]: v }, sendBody: true });
    }
  }
  return out;
}

const fuzzIds: string[] = [];

describe('fuzzing every OpenAPI operation (e2e, fast-check)', () => {
  let t: TestApp;
  let org: OrgWithKey;
  const ids = fuzzIds;

  beforeAll(async () => {
    t = await startTestApp({
      RATE_LIMIT_GENERAL_PER_MIN: '100000',
      RATE_LIMIT_CREATE_PER_MIN: '100000',
      RATE_LIMIT_SEARCH_PER_MIN: '100000',
      LOG_LEVEL: 'error',
    });
    org = await createOrgWithKey(t.app);
    validImage = await colourPng('#aa3355', 16);
    for (let i = 0; i < 2; i++) ids.push((await createReadyCore(t, org, { images: [validImage] })).coreId);
  }, 120_000);
  afterAll(() => t.close());

  const operations = Object.entries(DOC.paths).flatMap(([path, ops]) =>
    Object.entries(ops).map(([method, op]) => ({ method, path, op })),
  );

  it('covers every operation of the document', () => {
    expect(operations.length).toBeGreaterThanOrEqual(8);
  });

  for (const { method, path, op } of operations) {
    it(`${method.toUpperCase()} ${path}: no 5xx, every error body conformant`, async () => {
      await fc.assert(
        fc.asyncProperty(operationArbitrary(path, op, ids), async (r) => {
          let req = request(t.app.getHttpServer())
            [method as 'get' | 'post' | 'patch' | 'delete'](r.path)
            .query(r.query)
            .set('Authorization', `Bearer ${org.key}`);
          if (r.body !== undefined && (r.sendBody || op.requestBody)) {
            req = req.set('Content-Type', 'application/json').send(JSON.stringify(r.body));
          }
          const res = await req;
          const context = `${method.toUpperCase()} ${r.path} -> ${res.status} ${JSON.stringify(res.body).slice(0, 300)}`;
          if (res.status >= 500) throw new Error(`server error: ${context}`);
          if (res.status >= 400) {
            const body = res.body as { message?: unknown; status?: unknown };
            if (typeof body.message !== 'string' || body.status !== res.status) {
              throw new Error(`non-conformant error body: ${context}`);
            }
          }
        }),
        { numRuns: NUM_RUNS, examples: knownHostile(path, op).map((r) => [r]) },
      );
    });
  }
});
