import { spawn, spawnSync } from 'node:child_process';
import { isAbsolute, join } from 'node:path';
import { TS_REGISTER } from './ts-register';

const ROOT = join(__dirname, '..', '..');

export interface CliResult {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** Runs the real CLI entry point (src/cli.ts through the TypeScript hook) as a child process. */
export function cli(...args: string[]): CliResult {
  const res = spawnSync(process.execPath, ['-r', TS_REGISTER, join(ROOT, 'src', 'cli.ts'), ...args], {
    cwd: ROOT,
    env: { ...process.env, TS_NODE_PROJECT: join(ROOT, 'tsconfig.json') },
    encoding: 'utf8',
    timeout: 120000,
  });
  return { code: res.status, stdout: res.stdout, stderr: res.stderr };
}

/**
 * Async variant, for tests whose own servers (an HTTPS fixture) must keep answering while the CLI
 * runs: spawnSync would block this process's event loop.
 */
export function cliAsync(env: Record<string, string>, ...args: string[]): Promise<CliResult> {
  return runAsync(process.execPath, ['-r', TS_REGISTER, join(ROOT, 'src', 'cli.ts'), ...args], {
    env: { ...env, TS_NODE_PROJECT: join(ROOT, 'tsconfig.json') },
  });
}

/** Any command as a child process (`cwd` defaults to the repository), without blocking the event loop. */
export function runAsync(
  command: string,
  args: string[],
  options: { env?: Record<string, string | undefined>; cwd?: string; input?: string } = {},
): Promise<CliResult> {
  return new Promise((resolve, reject) => {
    // `npm test` sets NODE_EXTRA_CA_CERTS relative to the repository: keep it valid in another cwd.
    const ca = process.env.NODE_EXTRA_CA_CERTS;
    const env = {
      ...process.env,
      ...(ca ? { NODE_EXTRA_CA_CERTS: isAbsolute(ca) ? ca : join(ROOT, ca) } : {}),
      ...options.env,
    };
    const child = spawn(command, args, { cwd: options.cwd ?? ROOT, env });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr }));
    child.stdin.end(options.input ?? '');
  });
}
