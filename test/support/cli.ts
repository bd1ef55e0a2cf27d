import { spawn, spawnSync } from 'node:child_process';
import { join } from 'node:path';

const ROOT = join(__dirname, '..', '..');

export interface CliResult {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** Runs the real CLI entry point (src/cli.ts through ts-node) as a child process. */
export function cli(...args: string[]): CliResult {
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

/**
 * Async variant, for tests whose own servers (an HTTPS fixture) must keep answering while the CLI
 * runs: spawnSync would block this process's event loop.
 */
export function cliAsync(env: Record<string, string>, ...args: string[]): Promise<CliResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(
      process.execPath,
      ['-r', 'ts-node/register/transpile-only', join(ROOT, 'src', 'cli.ts'), ...args],
      {
        cwd: ROOT,
        env: { ...process.env, ...env, TS_NODE_PROJECT: join(ROOT, 'tsconfig.json') },
      },
    );
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
}
