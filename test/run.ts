/**
 * The test command (`npm test [-- <path filter>...]`): prepares a fresh database and Redis once
 * (test/global-setup.ts), then runs every spec on Node's test runner, two files at a time.
 */
import { spawnSync } from 'node:child_process';
import { readdirSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import globalSetup from './global-setup';

const ROOT = join(__dirname, '..');

function walk(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const full = join(dir, name);
    if (name === 'node_modules' || name === 'fixtures') return [];
    return statSync(full).isDirectory() ? walk(full) : [full];
  });
}

async function main(): Promise<void> {
  const filters = process.argv.slice(2);
  const files = [...walk(join(ROOT, 'src')), ...walk(join(ROOT, 'test'))]
    .filter((f) => /\.(spec|e2e-spec)\.ts$/.test(f))
    .map((f) => relative(ROOT, f))
    .filter((f) => filters.length === 0 || filters.some((p) => f.includes(p)))
    .sort();
  if (files.length === 0) {
    console.error(`no test files match ${filters.join(' ')}`);
    process.exit(1);
  }
  await globalSetup();
  const res = spawnSync(
    process.execPath,
    [
      '--test',
      `--test-concurrency=${process.env.TEST_CONCURRENCY ?? '2'}`,
      '--test-timeout=300000',
      '--test-reporter=spec',
      '--require',
      'ts-node/register/transpile-only',
      '--require',
      './test/support/jest-compat.ts',
      ...files,
    ],
    { cwd: ROOT, stdio: 'inherit', env: { ...process.env, TS_NODE_PROJECT: join(ROOT, 'tsconfig.json') } },
  );
  process.exit(res.status ?? 1);
}

main().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});
