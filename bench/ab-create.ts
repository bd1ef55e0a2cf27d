/**
 * `npm run bench:ab-create -- --a <checkout> --b <checkout> [--rounds 7] [--burst 6]`: the base64
 * create of two builds, measured side by side in one run. This machine's speed drifts by a third
 * within minutes, so two `npm run bench -- --only create` runs a few minutes apart cannot show a
 * change of 10-20%; here both builds' services run at once and take turns.
 *
 * Each checkout must hold a build (`npm run build`) of a schema-compatible version. Each service runs
 * as `npm run bench` runs it (`node dist/main.js`, production settings, its own fresh database) and gets
 * its org and key from its own CLI. Each round sends `--burst` back-to-back creates of the benchmark's
 * five 1.1 MB JPEGs to one build, then to the other (the order alternates by round), and waits until
 * every core is ready before the other build's turn: within a burst each create meets the previous
 * core's generation, as in `npm run bench`. The first create of each burst and the first round are not
 * counted. Printed per build: create latency (p50, p95, mean) and the service process's CPU time
 * while each request ran (from /proc, so Linux only).
 */
import { resolve } from 'node:path';
import { createBenchPhotos, createBody } from './photo-images';
import {
  argNumber,
  argValue,
  freePort,
  freshDatabase,
  orgAndKey,
  percentile,
  processCpuMs,
  serviceEnv,
  startService,
  waitReady,
  type Service,
} from './service';

interface Build {
  label: string;
  root: string;
  svc: Service;
  key: string;
  latencies: number[];
  cpu: number[];
}

async function start(label: string, root: string): Promise<Build> {
  const env = serviceEnv(await freshDatabase(`taste_bench_ab_${label}`), await freePort());
  const svc = await startService(env, { root });
  return { label, root, svc, key: await orgAndKey(env, `ab ${label}`, root), latencies: [], cpu: [] };
}

async function main(): Promise<void> {
  const a = argValue('--a');
  const b = argValue('--b');
  if (!a || !b) throw new Error('usage: --a <checkout> --b <checkout> [--rounds 7] [--burst 6]');
  const rounds = argNumber('--rounds', 7);
  const burst = argNumber('--burst', 6);
  const builds = [await start('a', resolve(a)), await start('b', resolve(b))];
  try {
    const jpegs = await createBenchPhotos();
    const body = createBody(
      'ab create',
      jpegs.map((j) => j.jpeg),
    );
    for (let round = 0; round < rounds; round += 1) {
      for (const build of round % 2 === 0 ? builds : [...builds].reverse()) {
        const cores: string[] = [];
        for (let k = 0; k < burst; k += 1) {
          const pid = build.svc.child.pid ?? 0;
          const cpu0 = processCpuMs(pid);
          const t0 = performance.now();
          const res = await fetch(`${build.svc.base}/api/v1/org/cores`, {
            method: 'POST',
            headers: { authorization: `Bearer ${build.key}`, 'content-type': 'application/json' },
            body,
          });
          const answer = (await res.json()) as { coreId: string };
          const ms = performance.now() - t0;
          const cpu = processCpuMs(pid) - cpu0;
          if (res.status !== 202) throw new Error(`build ${build.label}: create answered ${res.status}`);
          if (round > 0 && k > 0) {
            build.latencies.push(ms);
            build.cpu.push(cpu);
          }
          cores.push(answer.coreId);
        }
        for (const id of cores) await waitReady(build.svc.base, build.key, id, 10);
      }
    }
    console.log(`${new Date().toISOString()}, ${rounds} rounds of ${burst} creates, builds taking turns`);
    for (const build of builds) {
      const lat = [...build.latencies].sort((x, y) => x - y);
      const cpu = [...build.cpu].sort((x, y) => x - y);
      const mean = (v: number[]) => v.reduce((s, x) => s + x, 0) / v.length;
      console.log(
        `${build.label} ${build.root}: create p50 ${percentile(lat, 50).toFixed(0)} ms, p95 ${percentile(lat, 95).toFixed(0)} ms, ` +
          `mean ${mean(lat).toFixed(0)} ms (n=${lat.length}); service CPU per create p50 ${percentile(cpu, 50).toFixed(0)} ms, mean ${mean(cpu).toFixed(0)} ms`,
      );
    }
  } finally {
    await Promise.all(builds.map((build) => build.svc.stop()));
  }
}

main().then(
  () => process.exit(0),
  (err: unknown) => {
    console.error(err);
    process.exit(1);
  },
);
