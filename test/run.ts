/**
 * The test command (`npm test [-- <path filter>...]`): prepares a fresh database and Redis once
 * (test/global-setup.ts), then runs every spec on Node's test runner, two files at a time.
 */
import { spawnSync } from 'node:child_process';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import globalSetup from './global-setup';
import { chromiumMissing, IN_CI } from './support/chromium';
import { TS_REGISTER } from './support/ts-register';

const ROOT = join(__dirname, '..');

function walk(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const full = join(dir, name);
    if (name === 'node_modules' || name === 'fixtures') return [];
    return statSync(full).isDirectory() ? walk(full) : [full];
  });
}

const ONLY = /\b(?:it|test|describe)\.only\(/;

/**
 * `it.only` / `describe.only`: locally only the files that hold one run, and in them only the
 * focused tests (Node's --test-only); in CI a focused test fails the run, so none is merged by mistake.
 */
function focused(files: string[]): { files: string[]; flags: string[] } {
  const withOnly = files.filter((f) => ONLY.test(readFileSync(join(ROOT, f), 'utf8')));
  if (withOnly.length === 0) return { files, flags: [] };
  if (IN_CI) {
    console.error(`error: focused tests (.only) in ${withOnly.join(', ')}: remove them`);
    process.exit(1);
  }
  console.error(`warning: running only the focused tests (.only) in ${withOnly.join(', ')}`);
  return { files: withOnly, flags: ['--test-only'] };
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
  // The browser tests need Chromium: one message instead of a launch error per test. Locally they
  // are skipped and the message closes the output; in CI a missing browser fails the run at once.
  const needsBrowser = files.filter((f) =>
    readFileSync(join(ROOT, f), 'utf8').includes("'../support/browser'"),
  );
  const missing = needsBrowser.length > 0 ? chromiumMissing() : null;
  if (missing && IN_CI) {
    console.error(`error: ${missing}`);
    process.exit(1);
  }
  const run = focused(files);
  await globalSetup();
  const res = spawnSync(
    process.execPath,
    [
      '--test',
      `--test-concurrency=${process.env.TEST_CONCURRENCY ?? '2'}`,
      '--test-timeout=300000',
      '--test-reporter=spec',
      '--require',
      TS_REGISTER,
      '--require',
      './test/support/jest-compat.ts',
      ...run.flags,
      ...run.files,
    ],
    { cwd: ROOT, stdio: 'inherit', env: { ...process.env, TS_NODE_PROJECT: join(ROOT, 'tsconfig.json') } },
  );
  if (missing) console.error(`\nwarning: browser tests skipped (${needsBrowser.join(', ')}). ${missing}`);
  process.exit(res.status ?? 1);
}

main().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});
