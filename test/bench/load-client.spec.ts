import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { LoadResult, LoadSpec } from '../../bench/load-client';
import { freePort } from '../../bench/service';
import { TS_REGISTER } from '../support/ts-register';

const ROOT = join(__dirname, '..', '..');
const TS = ['-r', TS_REGISTER];

describe('benchmark load client and body-reading floor (spawned processes)', () => {
  it('sends every request in turn, counts statuses, and reports sorted latencies per request kind', async () => {
    const port = await freePort();
    const floor = spawn(
      process.execPath,
      [...TS, join(ROOT, 'bench', 'baseline-server.ts'), 'floor', String(port)],
      {
        cwd: ROOT,
        stdio: ['ignore', 'pipe', 'inherit'],
      },
    );
    try {
      await new Promise<void>((resolve, reject) => {
        floor.stdout.on('data', (d: Buffer) => d.toString().includes('listening') && resolve());
        floor.on('exit', (code) => reject(new Error(`floor exited ${code}`)));
      });
      const spec: LoadSpec = {
        origin: `http://127.0.0.1:${port}`,
        headers: {},
        requests: [
          { method: 'POST', path: '/', body: JSON.stringify({ images: ['a', 'b'] }) },
          { method: 'POST', path: '/', body: JSON.stringify({ images: [] }) },
        ],
        clients: 3,
        total: 20,
        warmup: 2,
      };
      const file = join(mkdtempSync(join(tmpdir(), 'load-spec-')), 'spec.json');
      writeFileSync(file, JSON.stringify(spec));
      const res = spawnSync(process.execPath, [...TS, join(ROOT, 'bench', 'load-client.ts'), file], {
        cwd: ROOT,
        encoding: 'utf8',
      });
      expect(res.status).toBe(0);
      const out = JSON.parse(res.stdout) as LoadResult;
      expect(out.statuses).toEqual({ '202': 20 });
      expect(out.latencies).toHaveLength(20);
      expect(out.byRequest.map((k) => k.length)).toEqual([10, 10]);
      expect([...out.latencies].sort((a, b) => a - b)).toEqual(out.latencies);
      expect(out.wallMs).toBeGreaterThan(0);
    } finally {
      floor.kill('SIGTERM');
    }
  });
});
