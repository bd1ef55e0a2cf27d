import { spawnSync } from 'node:child_process';
import { join } from 'node:path';

const ROOT = join(__dirname, '..', '..');

/** Runs the real CLI entry point (src/cli.ts through ts-node) as a child process. */
export function cli(...args: string[]): { code: number | null; stdout: string; stderr: string } {
  const res = spawnSync(
    process.execPath,
    ['-r', 'ts-node/register/transpile-only', join(ROOT, 'src', 'cli.ts'), ...args],
    {
      cwd: ROOT,
      env: { ...process.env, TS_NODE_PROJECT: join(ROOT, 'tsconfig.json') },
      encoding: 'utf8',
      timeout: 120000,
    },
  );
  return { code: res.status, stdout: res.stdout, stderr: res.stderr };
}
