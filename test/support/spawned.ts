import { spawn, type ChildProcess } from 'node:child_process';
import { join } from 'node:path';
import { TS_REGISTER } from './ts-register';

const ROOT = join(__dirname, '..', '..');

export interface Spawned {
  child: ChildProcess;
  /** Everything written so far on stdout and stderr. */
  output(): string;
  /** Resolves with the exit code (null when killed by a signal) once the process has exited. */
  exited: Promise<number | null>;
}

/**
 * Runs an entry point (`main`, `worker`, `cli`) of src/ through the TypeScript hook as a child process with
 * the test environment plus `env`, as `node dist/<entry>.js` runs in production.
 */
export function spawnEntry(
  entry: 'main' | 'worker' | 'cli',
  env: Record<string, string>,
  args: string[] = [],
): Spawned {
  const child = spawn(process.execPath, ['-r', TS_REGISTER, join(ROOT, 'src', `${entry}.ts`), ...args], {
    cwd: ROOT,
    env: { ...process.env, TS_NODE_PROJECT: join(ROOT, 'tsconfig.json'), ...env },
  });
  let out = '';
  child.stdout?.on('data', (d: Buffer) => (out += d.toString()));
  child.stderr?.on('data', (d: Buffer) => (out += d.toString()));
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  return { child, output: () => out, exited };
}

/** Polls `url` until it answers `status` (or throws after `timeoutMs`). */
export async function waitForStatus(url: string, status: number, timeoutMs = 60000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const res = await fetch(url).catch(() => null);
    if (res?.status === status) return;
    if (Date.now() > deadline) throw new Error(`${url} did not answer ${status} within ${timeoutMs} ms`);
    await new Promise((r) => setTimeout(r, 200));
  }
}
