import { mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createOrgWithKey, OrgWithKey, startTestApp, TestApp } from '../support/app';
import { runAsync } from '../support/cli';

const ROOT = join(__dirname, '..', '..');
const TSC = join(ROOT, 'node_modules', '.bin', 'tsc');

/**
 * An empty client project whose lockfile already pins openapi-fetch (and its one dependency) as the
 * repository's lockfile does: `npm ci` put those tarballs in the npm cache, and `npm ci` fetches no
 * registry metadata, so only a pinned lockfile lets `npm install --offline` resolve the SDK's
 * dependency without the network.
 */
function seedOfflineProject(dir: string): void {
  const lock = JSON.parse(readFileSync(join(ROOT, 'package-lock.json'), 'utf8')).packages;
  const pinned = (name: string) => {
    const { dev: _dev, ...entry } = lock[`node_modules/${name}`];
    return entry;
  };
  const dependencies = { 'openapi-fetch': pinned('openapi-fetch').version };
  const root = { name: 'client', version: '1.0.0', private: true, dependencies };
  writeFileSync(join(dir, 'package.json'), JSON.stringify(root));
  const packages: Record<string, unknown> = { '': root };
  for (const name of ['openapi-fetch', 'openapi-typescript-helpers'])
    packages[`node_modules/${name}`] = pinned(name);
  writeFileSync(
    join(dir, 'package-lock.json'),
    JSON.stringify({ name: 'client', version: '1.0.0', lockfileVersion: 3, requires: true, packages }),
  );
}

/**
 * `sdk/` as a client gets it: `npm pack` (which builds sdk/dist with tsc), the tarball installed
 * into an empty project (openapi-fetch from the local npm cache), then used from plain Node and
 * type-checked from TypeScript.
 */
describe('the SDK as an installable package (e2e)', () => {
  let t: TestApp;
  let org: OrgWithKey;
  let project: string;

  beforeAll(async () => {
    t = await startTestApp();
    org = await createOrgWithKey(t.app);
    const packDir = mkdtempSync(join(tmpdir(), 'sdk-pack-'));
    const packed = await runAsync('npm', ['pack', './sdk', '--pack-destination', packDir, '--silent']);
    if (packed.code !== 0) throw new Error(`npm pack failed:\n${packed.stdout}\n${packed.stderr}`);
    const tarball = join(packDir, readdirSync(packDir).find((f) => f.endsWith('.tgz')) as string);
    project = mkdtempSync(join(tmpdir(), 'sdk-client-'));
    seedOfflineProject(project);
    const installed = await runAsync(
      'npm',
      ['install', '--offline', '--no-audit', '--no-fund', '--ignore-scripts', tarball],
      { cwd: project },
    );
    if (installed.code !== 0)
      throw new Error(`npm install failed:\n${installed.stdout}\n${installed.stderr}`);
  }, 240000);
  afterAll(() => t.close());

  it('ships only dist with typings, version 1.0.0, and openapi-fetch as its dependency', async () => {
    const pkg = JSON.parse(
      readFileSync(join(project, 'node_modules', 'taste-profile-sdk', 'package.json'), 'utf8'),
    );
    expect(pkg.version).toBe('1.0.0');
    expect(pkg.dependencies).toEqual({ 'openapi-fetch': expect.any(String) });
    expect(readdirSync(join(project, 'node_modules', 'taste-profile-sdk', 'dist')).sort()).toEqual([
      'index.d.ts',
      'index.js',
      'schema.d.ts',
    ]);
    expect(readdirSync(join(project, 'node_modules'))).toContain('openapi-fetch');
  });

  it('works from plain Node in the client project', async () => {
    const script = `
      const { createTasteClient } = require('taste-profile-sdk');
      const api = createTasteClient(process.env.BASE_URL, process.env.TASTE_API_KEY);
      api.GET('/api/v1/org/me').then(({ data, error, response }) =>
        console.log(JSON.stringify({ status: response.status, orgId: data && data.organization.id, error })));`;
    const ok = await runAsync(process.execPath, ['-e', script], {
      cwd: project,
      env: { BASE_URL: t.baseUrl, TASTE_API_KEY: org.key },
    });
    expect(ok.stderr).toBe('');
    expect(JSON.parse(ok.stdout)).toEqual({ status: 200, orgId: org.orgId });

    const refused = await runAsync(process.execPath, ['-e', script], {
      cwd: project,
      env: { BASE_URL: t.baseUrl, TASTE_API_KEY: 'tpk_not_a_key' },
    });
    expect(JSON.parse(refused.stdout)).toMatchObject({ status: 401, error: { message: 'Invalid API key.' } });
  }, 180_000);

  it("runs the README's client.js in the client project: create, poll until ready, search", async () => {
    const readme = readFileSync(join(ROOT, 'README.md'), 'utf8');
    const block = /<!-- sdk-client:[^>]*-->\s*```js\n([\s\S]*?)```/.exec(readme);
    expect(block).not.toBeNull();
    writeFileSync(join(project, 'client.js'), (block as RegExpExecArray)[1]);
    const res = await runAsync(process.execPath, ['client.js'], {
      cwd: project,
      env: { BASE_URL: t.baseUrl, TASTE_API_KEY: org.key },
    });
    expect(res.stderr).toBe('');
    expect(res.code).toBe(0);
    expect(res.stdout).toMatch(/^Autumn: /);
  }, 180_000);

  it('gives TypeScript clients the typed paths (a wrong body is a compile error)', async () => {
    writeFileSync(
      join(project, 'ok.ts'),
      `import { createTasteClient, Core } from 'taste-profile-sdk';
       const api = createTasteClient('http://localhost:3000', 'tpk_x');
       export async function f(): Promise<Core['coreStatus'] | undefined> {
         const { data } = await api.GET('/api/v1/org/cores/{id}', { params: { path: { id: 'x' } } });
         return data?.coreStatus;
       }`,
    );
    writeFileSync(
      join(project, 'bad.ts'),
      `import { createTasteClient } from 'taste-profile-sdk';
       const api = createTasteClient('http://localhost:3000', 'tpk_x');
       void api.POST('/api/v1/org/cores', { body: { title: 'no such field' } });`,
    );
    const flags = [
      '--noEmit',
      '--strict',
      '--module',
      'commonjs',
      '--target',
      'es2022',
      '--lib',
      'es2023,dom',
    ];
    const ok = await runAsync(TSC, [...flags, 'ok.ts'], { cwd: project });
    expect(ok.stdout).toBe('');
    expect(ok.code).toBe(0);
    const bad = await runAsync(TSC, [...flags, 'bad.ts'], { cwd: project });
    expect(bad.code).not.toBe(0);
    expect(bad.stdout).toContain('title');
  }, 180_000);
});
