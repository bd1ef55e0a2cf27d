import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { parse } from 'yaml';
import SwaggerParser from '@apidevtools/swagger-parser';
import {
  checkConformance,
  collectOperations,
  isObject,
  normaliseSchema,
  type JsonObject,
} from '../../tools/openapi-conformance';

const ROOT = path.resolve(__dirname, '../..');
const CONTRACT_FILE = path.join(ROOT, 'openapi/taste-profile.v1.yaml');

/**
 * Runs the real CLI (@apidevtools/swagger-parser is ESM-only inside jest, so it is exercised through a child
 * process): validates and dereferences both documents, then checks conformance.
 */
function runCli(contractFile: string, generatedFile: string): { status: number | null; output: string } {
  const result = spawnSync(
    process.execPath,
    [
      require.resolve('ts-node/dist/bin.js'),
      '--transpile-only',
      'tools/openapi-check.ts',
      contractFile,
      generatedFile,
    ],
    { cwd: ROOT, encoding: 'utf8', timeout: 60_000 },
  );
  return { status: result.status, output: `${result.stdout}${result.stderr}` };
}

/** Dereferences both documents (as tools/openapi-check.ts does), then checks conformance. */
async function conform(contract: JsonObject, generated: JsonObject): Promise<string[]> {
  const deref = (doc: JsonObject): Promise<unknown> =>
    SwaggerParser.dereference(structuredClone(doc) as never);
  return checkConformance(await deref(contract), await deref(generated));
}

/** A small OAS 3.1 contract in the style of openapi/taste-profile.v1.yaml. */
function contract31(): JsonObject {
  return {
    openapi: '3.1.0',
    info: { title: 'Contract', version: '1.0.0' },
    servers: [{ url: '/api/v1/org' }],
    paths: {
      '/cores/{id}': {
        parameters: [{ name: 'id', in: 'path', required: true, schema: { type: 'string' } }],
        get: {
          operationId: 'getCore',
          responses: {
            '200': {
              description: 'ok',
              content: { 'application/json': { schema: { $ref: '#/components/schemas/CoreResponseDto' } } },
            },
            '404': { $ref: '#/components/responses/Error' },
          },
        },
      },
      '/cores': {
        get: {
          operationId: 'listCores',
          parameters: [
            {
              name: 'limit',
              in: 'query',
              required: false,
              schema: { type: 'integer', minimum: 1, maximum: 100 },
            },
          ],
          responses: { '200': { description: 'ok' } },
        },
        post: {
          operationId: 'createCore',
          requestBody: {
            required: true,
            content: {
              'application/json': {
                schema: {
                  type: 'object',
                  required: ['name'],
                  properties: {
                    name: { type: 'string', maxLength: 255 },
                    imageUrls: { type: 'array', maxItems: 5, items: { type: 'string', format: 'uri' } },
                  },
                },
              },
            },
          },
          responses: { '202': { description: 'accepted' } },
        },
      },
    },
    components: {
      responses: {
        Error: {
          description: 'error',
          content: { 'application/json': { schema: { $ref: '#/components/schemas/ErrorResponseDto' } } },
        },
      },
      schemas: {
        CoreStatus: { type: 'string', enum: ['processing', 'ready', 'failed'] },
        ErrorResponseDto: {
          type: 'object',
          required: ['message', 'status'],
          properties: { message: { type: 'string' }, status: { type: 'integer' } },
        },
        CoreImageDto: {
          type: 'object',
          required: ['imageURL', 'caption'],
          properties: { imageURL: { type: 'string', format: 'uri' }, caption: { type: ['string', 'null'] } },
        },
        CoreResponseDto: {
          type: 'object',
          required: ['status', 'id', 'coreStatus', 'taste', 'images', 'createdAt'],
          properties: {
            status: { type: 'integer' },
            id: { type: 'string' },
            coreStatus: { $ref: '#/components/schemas/CoreStatus' },
            taste: { type: ['string', 'null'] },
            images: { type: 'array', items: { $ref: '#/components/schemas/CoreImageDto' } },
            createdAt: { type: 'string', format: 'date-time' },
          },
        },
      },
    },
  };
}

/**
 * The same API as @nestjs/swagger would emit it: OAS 3.0, no servers, full paths, other path parameter
 * names, `nullable: true`, `allOf` wrappers around references, inline enums, extra operations/properties.
 */
function generated30(): JsonObject {
  return {
    openapi: '3.0.0',
    info: { title: 'Generated', version: '1.0.0' },
    paths: {
      '/api/v1/org/cores/{coreId}': {
        get: {
          operationId: 'CoresController_get',
          parameters: [{ name: 'coreId', in: 'path', required: true, schema: { type: 'string' } }],
          responses: {
            '200': {
              description: '',
              content: { 'application/json': { schema: { $ref: '#/components/schemas/CoreResponseDto' } } },
            },
            '404': {
              description: '',
              content: { 'application/json': { schema: { $ref: '#/components/schemas/ErrorResponseDto' } } },
            },
          },
        },
      },
      '/api/v1/org/cores/': {
        get: {
          operationId: 'CoresController_list',
          parameters: [
            {
              name: 'limit',
              in: 'query',
              required: false,
              schema: { type: 'integer', minimum: 1, maximum: 100 },
            },
            { name: 'page', in: 'query', required: false, schema: { type: 'integer' } },
          ],
          responses: { '200': { description: '' } },
        },
        post: {
          operationId: 'CoresController_create',
          requestBody: {
            required: true,
            content: { 'application/json': { schema: { $ref: '#/components/schemas/CoreCreateDto' } } },
          },
          responses: { '202': { description: '' }, '400': { description: '' } },
        },
      },
      '/api/v1/org/extra': { get: { responses: { '200': { description: '' } } } },
    },
    components: {
      schemas: {
        ErrorResponseDto: {
          type: 'object',
          required: ['message', 'status', 'code'],
          properties: { message: { type: 'string' }, status: { type: 'integer' }, code: { type: 'string' } },
        },
        CoreCreateDto: {
          type: 'object',
          required: ['name'],
          properties: {
            name: { type: 'string', maxLength: 255, description: 'Name' },
            imageUrls: { type: 'array', maxItems: 5, items: { type: 'string', format: 'uri' } },
          },
        },
        CoreImageDto: {
          type: 'object',
          required: ['imageURL', 'caption'],
          properties: {
            imageURL: { type: 'string', format: 'uri' },
            caption: { type: 'string', nullable: true, example: 'a coat' },
          },
        },
        CoreResponseDto: {
          type: 'object',
          required: ['status', 'id', 'coreStatus', 'taste', 'images', 'createdAt', 'extra'],
          properties: {
            status: { type: 'integer', example: 200 },
            id: { type: 'string' },
            coreStatus: { type: 'string', enum: ['ready', 'failed', 'processing'] },
            taste: { type: 'string', nullable: true },
            images: { type: 'array', items: { allOf: [{ $ref: '#/components/schemas/CoreImageDto' }] } },
            createdAt: { type: 'string', format: 'date-time' },
            extra: { type: 'string' },
            note: { type: 'string' },
          },
        },
      },
    },
  };
}

function schemasOf(doc: JsonObject): JsonObject {
  const components = doc.components;
  if (!isObject(components) || !isObject(components.schemas)) throw new Error('no components.schemas');
  return components.schemas;
}

function schema(doc: JsonObject, name: string): JsonObject {
  const found = schemasOf(doc)[name];
  if (!isObject(found)) throw new Error(`no schema ${name}`);
  return found;
}

function props(doc: JsonObject, name: string): JsonObject {
  const found = schema(doc, name).properties;
  if (!isObject(found)) throw new Error(`no properties in ${name}`);
  return found;
}

function loadContract(): JsonObject {
  const parsed: unknown = parse(fs.readFileSync(CONTRACT_FILE, 'utf8'));
  if (!isObject(parsed)) throw new Error('contract is not an object');
  return parsed;
}

/** Rewrites an OAS 3.1 document into 3.0 style: full paths, no servers, `nullable`, allOf-wrapped refs. */
function to30Style(doc: JsonObject): JsonObject {
  const base = '/api/v1/org';
  const convert = (node: unknown, parentKey?: string): unknown => {
    if (Array.isArray(node)) return node.map((item) => convert(item));
    if (!isObject(node)) return node;
    const out: JsonObject = {};
    for (const [key, value] of Object.entries(node)) {
      out[key] = key === 'example' || key === 'examples' ? value : convert(value, key);
    }
    if (Array.isArray(out.type) && out.type.includes('null')) {
      const rest = out.type.filter((t) => t !== 'null');
      out.type = rest.length === 1 ? rest[0] : rest;
      out.nullable = true;
    }
    if ('const' in out) {
      out.enum = [out.const];
      delete out.const;
    }
    if (parentKey === 'properties') {
      for (const [name, value] of Object.entries(out)) {
        if (isObject(value) && typeof value.$ref === 'string') out[name] = { allOf: [{ $ref: value.$ref }] };
      }
    }
    return out;
  };
  const converted = convert(doc);
  if (!isObject(converted) || !isObject(converted.paths)) throw new Error('conversion failed');
  const paths: JsonObject = {};
  for (const [p, item] of Object.entries(converted.paths)) paths[`${base}${p}`] = item;
  const { servers: _servers, ...rest } = converted;
  return { ...rest, openapi: '3.0.3', paths };
}

describe('openapi-conformance helpers', () => {
  it('joins the server base path with the path template and erases parameter names', () => {
    const keys = (servers: unknown[], path: string): string[] => [
      ...collectOperations({ servers, paths: { [path]: { get: {} } } }).keys(),
    ];
    expect(keys([{ url: '/api/v1/org/' }], '/cores/{id}')).toEqual(['GET /api/v1/org/cores/{}']);
    expect(keys([{ url: 'https://api.example.com/api/v1/org' }], '/cores/{coreId}/products')).toEqual([
      'GET /api/v1/org/cores/{}/products',
    ]);
    expect(keys([], '/api/v1/org/cores/')).toEqual(['GET /api/v1/org/cores']);
    expect([...collectOperations(contract31()).keys()].sort()).toEqual(
      [...collectOperations(generated30()).keys()].filter((key) => !key.endsWith('/extra')).sort(),
    );
  });

  it('normalises 3.0 and 3.1 nullability to the same shape', () => {
    const spellings: unknown[] = [
      { type: ['string', 'null'] },
      { type: 'string', nullable: true },
      { anyOf: [{ type: 'string' }, { type: 'null' }] },
      { oneOf: [{ type: 'null' }, { type: 'string' }] },
      { allOf: [{ type: 'string' }], nullable: true },
    ];
    for (const spelling of spellings) {
      const normal = normaliseSchema(spelling);
      expect({ types: normal.types, nullable: normal.nullable }).toEqual({
        types: ['string'],
        nullable: true,
      });
    }
    expect(normaliseSchema({ type: 'string' }).nullable).toBe(false);
  });
});

describe('checkConformance', () => {
  it('passes on an equivalent document written in 3.0 style (nullable, allOf, full paths, no servers)', async () => {
    expect(await conform(contract31(), generated30())).toEqual([]);
  });

  it('catches a removed required response field', async () => {
    const generated = generated30();
    delete props(generated, 'CoreResponseDto').coreStatus;
    const problems = await conform(contract31(), generated);
    expect(problems).toEqual([
      'GET /api/v1/org/cores/{id} (getCore) response 200 body coreStatus: required property is missing in generated',
    ]);
  });

  it('catches a required field that became optional', async () => {
    const generated = generated30();
    schema(generated, 'CoreResponseDto').required = ['status', 'id', 'coreStatus', 'images', 'createdAt'];
    expect(await conform(contract31(), generated)).toEqual([
      'GET /api/v1/org/cores/{id} (getCore) response 200 body taste: required in the contract but optional in generated',
    ]);
  });

  it('catches a changed type', async () => {
    const generated = generated30();
    props(generated, 'CoreResponseDto').status = { type: 'string' };
    const problems = await conform(contract31(), generated);
    expect(problems).toHaveLength(1);
    expect(problems[0]).toContain('body status: type is integer in the contract but string in generated');
  });

  it('treats integer and number as different types', async () => {
    const generated = generated30();
    props(generated, 'CoreResponseDto').status = { type: 'number' };
    expect((await conform(contract31(), generated)).join('\n')).toContain(
      'type is integer in the contract but number',
    );
  });

  it('catches a missing status code', async () => {
    const generated = generated30();
    const paths = generated.paths;
    if (!isObject(paths)) throw new Error('no paths');
    const item = paths['/api/v1/org/cores/{coreId}'];
    if (!isObject(item) || !isObject(item.get) || !isObject(item.get.responses))
      throw new Error('bad fixture');
    delete item.get.responses['404'];
    expect(await conform(contract31(), generated)).toEqual([
      'GET /api/v1/org/cores/{id} (getCore) response 404: status code missing in generated',
    ]);
  });

  it('catches a changed enum', async () => {
    const generated = generated30();
    props(generated, 'CoreResponseDto').coreStatus = {
      type: 'string',
      enum: ['processing', 'done', 'failed'],
    };
    const problems = await conform(contract31(), generated);
    expect(problems).toHaveLength(1);
    expect(problems[0]).toContain('coreStatus: enum ["processing","ready","failed"] in the contract but');
  });

  it('catches nullable vs non-nullable in both directions and in nested array items', async () => {
    const generated = generated30();
    props(generated, 'CoreResponseDto').taste = { type: 'string' };
    props(generated, 'CoreResponseDto').id = { type: 'string', nullable: true };
    props(generated, 'CoreImageDto').caption = { type: 'string' };
    const problems = await conform(contract31(), generated);
    expect(problems).toEqual(
      expect.arrayContaining([
        expect.stringContaining('body taste: is nullable in the contract but not in generated'),
        expect.stringContaining('body id: is not nullable in the contract but nullable in generated'),
        expect.stringContaining('body images[].caption: is nullable in the contract but not in generated'),
      ]),
    );
    expect(problems).toHaveLength(3);
  });

  it('catches a changed format and a missing operation', async () => {
    const generated = generated30();
    props(generated, 'CoreResponseDto').createdAt = { type: 'string' };
    const paths = generated.paths;
    if (!isObject(paths)) throw new Error('no paths');
    delete paths['/api/v1/org/cores/'];
    const problems = await conform(contract31(), generated);
    expect(problems).toEqual(
      expect.arrayContaining([
        expect.stringContaining('createdAt: format is "date-time" in the contract but absent in generated'),
        'GET /api/v1/org/cores (listCores): operation missing in generated',
        'POST /api/v1/org/cores (createCore): operation missing in generated',
      ]),
    );
  });

  it('catches parameter and request body differences', async () => {
    const generated = generated30();
    const paths = generated.paths;
    if (!isObject(paths)) throw new Error('no paths');
    const item = paths['/api/v1/org/cores/'];
    if (!isObject(item) || !isObject(item.get) || !isObject(item.post)) throw new Error('bad fixture');
    item.get.parameters = [
      { name: 'limit', in: 'query', required: true, schema: { type: 'integer', minimum: 1 } },
      { name: 'sort', in: 'query', required: true, schema: { type: 'string' } },
    ];
    item.post.requestBody = { content: { 'application/json': { schema: { type: 'object' } } } };
    schema(generated, 'CoreCreateDto').required = ['name', 'imageUrls'];
    const problems = await conform(contract31(), generated);
    expect(problems).toEqual(
      expect.arrayContaining([
        'GET /api/v1/org/cores (listCores) query parameter "limit": optional in the contract but required in generated',
        'GET /api/v1/org/cores (listCores) query parameter "limit": maximum is 100 in the contract but absent in generated',
        'GET /api/v1/org/cores (listCores) query parameter "sort": required in generated but not part of the contract',
        'POST /api/v1/org/cores (createCore) request body: required in the contract but optional in generated',
        'POST /api/v1/org/cores (createCore) request body name: required property is missing in generated',
        'POST /api/v1/org/cores (createCore) request body imageUrls: optional property is not accepted by generated',
      ]),
    );
  });
});

describe('the committed contract (openapi/taste-profile.v1.yaml)', () => {
  it('passes when checked against itself (in memory)', async () => {
    expect(await conform(loadContract(), loadContract())).toEqual([]);
  });

  it('is valid and passes against itself through the CLI; the CLI exits 1 on a non-conforming document', () => {
    const ok = runCli('openapi/taste-profile.v1.yaml', 'openapi/taste-profile.v1.yaml');
    expect(ok.output).toContain('conforms to');
    expect(ok.status).toBe(0);

    const generated = to30Style(loadContract());
    delete props(generated, 'JobResponseDto').jobStatus;
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'openapi-check-'));
    try {
      const file = path.join(dir, 'generated.json');
      fs.writeFileSync(file, JSON.stringify(generated));
      const bad = runCli('openapi/taste-profile.v1.yaml', file);
      expect(bad.status).toBe(1);
      expect(bad.output).toContain(
        'GET /api/v1/org/jobs/{jobId} (getJob) response 200 body jobStatus: required property is missing in generated',
      );
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  }, 60_000);

  it('passes against a 3.0-style rewrite of itself, and catches a removed coreStatus there', async () => {
    const generated = to30Style(loadContract());
    expect(generated.servers).toBeUndefined();
    expect(await conform(loadContract(), generated)).toEqual([]);

    const required = schema(generated, 'CoreResponseDto').required;
    schema(generated, 'CoreResponseDto').required = Array.isArray(required)
      ? required.filter((name) => name !== 'coreStatus')
      : [];
    delete props(generated, 'CoreResponseDto').coreStatus;
    const problems = await conform(loadContract(), generated);
    expect(problems.length).toBeGreaterThanOrEqual(1);
    expect(problems.join('\n')).toContain('coreStatus: required property is missing in generated');
  });

  it('declares every operation of the specification with 401 and 429 responses', () => {
    const operations = [...collectOperations(loadContract()).values()];
    expect(operations.map((op) => op.operation.operationId).sort()).toEqual(
      [
        'createCore',
        'createWebhook',
        'deleteCore',
        'deleteWebhook',
        'getCore',
        'getJob',
        'getMe',
        'listCores',
        'listWebhookDeliveries',
        'listWebhooks',
        'searchProducts',
        'testWebhook',
        'updateCore',
      ].sort(),
    );
    for (const op of operations) {
      expect(Object.keys(isObject(op.operation.responses) ? op.operation.responses : {})).toEqual(
        expect.arrayContaining(['401', '429']),
      );
    }
  });
});
