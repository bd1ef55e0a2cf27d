/**
 * The benchmarks' helper processes: a bench/ script run by ts-node in a child process, the load
 * generator (`load-client.ts`) and the same-run baseline servers (`baseline-server.ts`), each in a
 * process of its own so that none shares the measured process's event loop.
 */
import { spawn } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { LoadResult, LoadSpec } from './load-client';
import { freePort, ROOT } from './service';

/** Runs a script of bench/ in a child process (ts-node) and resolves with its stdout. */
export function benchScript(
  script: string,
  args: string[],
  env: Record<string, string> = {},
): Promise<string> {
  return new Promise((resolve, reject) => {
    const p = spawn(
      process.execPath,
      ['-r', 'ts-node/register/transpile-only', join(__dirname, script), ...args],
      {
        cwd: ROOT,
        env: { ...process.env, ...env },
        stdio: ['ignore', 'pipe', 'inherit'],
      },
    );
    let out = '';
    p.stdout.on('data', (d: Buffer) => (out += d.toString()));
    p.on('error', reject);
    p.on('close', (code) => (code === 0 ? resolve(out) : reject(new Error(`${script} exited ${code}`))));
  });
}

/** One load (`load-client.ts`) in its own process; its spec is written to a file in `dir`. */
export function load(spec: LoadSpec, dir: string): Promise<LoadResult> {
  const file = join(dir, `load-${Date.now()}-${Math.random().toString(36).slice(2)}.json`);
  writeFileSync(file, JSON.stringify(spec));
  return benchScript('load-client.ts', [file]).then((out) => JSON.parse(out) as LoadResult);
}

/** A baseline server in its own process; resolves once it listens. */
export async function baseline(
  mode: 'cores' | 'floor',
  env: Record<string, string>,
): Promise<{ port: number; stop(): void }> {
  const port = await freePort();
  const p = spawn(
    process.execPath,
    ['-r', 'ts-node/register/transpile-only', join(__dirname, 'baseline-server.ts'), mode, String(port)],
    {
      cwd: ROOT,
      env: { ...process.env, ...env },
      stdio: ['ignore', 'pipe', 'inherit'],
    },
  );
  await new Promise<void>((resolve, reject) => {
    p.stdout.on('data', (d: Buffer) => d.toString().includes('listening') && resolve());
    p.on('exit', (code) => reject(new Error(`baseline ${mode} exited ${code}`)));
  });
  return { port, stop: () => p.kill('SIGTERM') };
}

/**
 * The body-reading floor: `total` POSTs of `body` at one connection (after 2 untimed) to a server that
 * only reads and parses it, the floor under which no create can go.
 */
export async function bodyFloor(body: string, total: number, dir: string): Promise<LoadResult> {
  const floor = await baseline('floor', {});
  try {
    return await load(
      {
        origin: `http://127.0.0.1:${floor.port}`,
        headers: {},
        requests: [{ method: 'POST', path: '/', body }],
        clients: 1,
        total,
        warmup: 2,
      },
      dir,
    );
  } finally {
    floor.stop();
  }
}
