import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parse } from 'yaml';
import { generateOpenApiDocument } from '../../src/openapi/document';
import { TS_REGISTER } from '../support/ts-register';

const ROOT = join(__dirname, '..', '..');

function run(cmd: string, args: string[]): { code: number | null; out: string } {
  const res = spawnSync(cmd, args, { cwd: ROOT, encoding: 'utf8', timeout: 120000 });
  return { code: res.status, out: `${res.stdout}\n${res.stderr}` };
}

interface Doc {
  paths: Record<
    string,
    Record<string, { requestBody?: { content?: Record<string, { schema?: { $ref?: string } }> } }>
  >;
  components: { schemas: Record<string, { additionalProperties?: unknown }> };
}

/** The component schemas that are some operation's JSON request body. */
function requestBodySchemas(doc: Doc): string[] {
  const names = Object.values(doc.paths).flatMap((item) =>
    Object.values(item).map((op) => op?.requestBody?.content?.['application/json']?.schema?.$ref ?? ''),
  );
  return [...new Set(names.filter(Boolean).map((ref) => ref.replace('#/components/schemas/', '')))];
}

/** The OpenAPI checks of CI: drift, conformance to the contract, lint, and the SDK's freshness. */
describe('OpenAPI contract', () => {
  it('the committed openapi/generated.json equals a fresh generation from the decorators (no drift)', async () => {
    const fresh = JSON.parse(JSON.stringify(await generateOpenApiDocument()));
    const committed = JSON.parse(readFileSync(join(ROOT, 'openapi', 'generated.json'), 'utf8'));
    expect(fresh).toEqual(committed);
  });

  it('the bearer scheme describes opaque tpk_ keys, not JWTs, in both documents', async () => {
    const fresh = (await generateOpenApiDocument()).components?.securitySchemes?.bearer;
    const contract = parse(readFileSync(join(ROOT, 'openapi', 'taste-profile.v1.yaml'), 'utf8'));
    const committed = contract.components.securitySchemes.bearer;
    expect(fresh).toEqual(
      expect.objectContaining({ type: 'http', scheme: 'bearer', bearerFormat: 'tpk_ API key' }),
    );
    expect(committed.bearerFormat).toBe('tpk_ API key');
  });

  // The validation pipe refuses unknown fields (400): a schema-driven test that sends one expects it.
  it('every request body schema is closed (additionalProperties: false) in both documents', async () => {
    const fresh = JSON.parse(JSON.stringify(await generateOpenApiDocument())) as Doc;
    const contract = parse(readFileSync(join(ROOT, 'openapi', 'taste-profile.v1.yaml'), 'utf8')) as Doc;
    for (const doc of [fresh, contract]) {
      const bodies = requestBodySchemas(doc);
      expect(bodies.length).toBeGreaterThanOrEqual(4);
      for (const name of bodies)
        expect({ name, closed: doc.components.schemas[name].additionalProperties }).toEqual({
          name,
          closed: false,
        });
    }
  });

  it('the generated document satisfies the contract (openapi/taste-profile.v1.yaml)', () => {
    const res = run(process.execPath, [
      '-r',
      TS_REGISTER,
      'tools/openapi-check.ts',
      'openapi/taste-profile.v1.yaml',
      'openapi/generated.json',
    ]);
    expect(res.out).toContain('conforms');
    expect(res.code).toBe(0);
  });

  it('both documents pass the Spectral ruleset with zero errors', () => {
    const res = run(join(ROOT, 'node_modules', '.bin', 'spectral'), [
      'lint',
      'openapi/taste-profile.v1.yaml',
      'openapi/generated.json',
      '--fail-severity=error',
      '--ruleset',
      '.spectral.yaml',
    ]);
    expect(res.out).not.toMatch(/ [1-9]\d* errors?/);
    expect(res.code).toBe(0);
  });

  it('the committed SDK types are generated from the committed document', () => {
    const out = join(mkdtempSync(join(tmpdir(), 'sdk-')), 'schema.d.ts');
    const res = run(join(ROOT, 'node_modules', '.bin', 'openapi-typescript'), [
      'openapi/generated.json',
      '-o',
      out,
    ]);
    expect(res.code).toBe(0);
    expect(readFileSync(out, 'utf8')).toBe(readFileSync(join(ROOT, 'sdk', 'schema.d.ts'), 'utf8'));
  });
});
