import { mkdtempSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createOrgWithKey, freePort, startTestApp, TestApp } from '../support/app';
import { colourPng } from '../support/cores';
import { spawnEntry, Spawned, waitForStatus } from '../support/spawned';

interface OtlpSpan {
  traceId: string;
  spanId: string;
  name: string;
  kind: number;
  attributes?: { key: string; value: Record<string, unknown> }[];
}

/** A tiny OTLP/HTTP receiver (JSON encoding): collects every span posted to /v1/traces. */
async function startOtlpReceiver(): Promise<{ url: string; spans: OtlpSpan[]; close(): Promise<void> }> {
  const spans: OtlpSpan[] = [];
  const server: Server = createServer((req, res) => {
    let raw = '';
    req.on('data', (d: Buffer) => (raw += d.toString()));
    req.on('end', () => {
      if (req.url === '/v1/traces') {
        const body = JSON.parse(raw) as {
          resourceSpans: { scopeSpans: { spans: OtlpSpan[] }[] }[];
        };
        for (const rs of body.resourceSpans) for (const ss of rs.scopeSpans) spans.push(...ss.spans);
      }
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end('{}');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  return {
    url: `http://127.0.0.1:${port}`,
    spans,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

const attr = (s: OtlpSpan, key: string): unknown => {
  const v = s.attributes?.find((a) => a.key === key)?.value;
  return v ? Object.values(v)[0] : undefined;
};

/** Preloaded in the spawned process: lists the OpenTelemetry SDK modules it loaded, at exit. */
function moduleProbe(): string {
  const file = join(mkdtempSync(join(tmpdir(), 'otel-probe-')), 'probe.js');
  writeFileSync(
    file,
    `process.on('exit', () => {
      const loaded = Object.keys(require.cache).filter((f) => /@opentelemetry[\\\\/](sdk-node|instrumentation-)/.test(f));
      process.stderr.write('OTEL_SDK_MODULES=' + loaded.length + '\\n');
    });\n`,
  );
  return file;
}

describe('OpenTelemetry tracing (spawned processes)', () => {
  let t: TestApp;
  let receiver: Awaited<ReturnType<typeof startOtlpReceiver>>;
  const spawned: Spawned[] = [];
  const probe = moduleProbe();

  beforeAll(async () => {
    receiver = await startOtlpReceiver();
    t = await startTestApp({ ROLE: 'api' });
  });
  afterAll(async () => {
    for (const p of spawned) p.child.kill('SIGKILL');
    await t.close();
    await receiver.close();
  });

  async function start(env: Record<string, string>): Promise<{ p: Spawned; base: string }> {
    const port = await freePort();
    const p = spawnEntry('main', {
      ROLE: 'api',
      PORT: String(port),
      LOG_LEVEL: 'info',
      SHUTDOWN_DELAY_MS: '0',
      NODE_OPTIONS: `--require ${probe}`,
      ...env,
    });
    spawned.push(p);
    const base = `http://127.0.0.1:${port}`;
    await waitForStatus(`${base}/health/ready`, 200);
    return { p, base };
  }

  it('exports HTTP and pg spans over OTLP and puts the trace id in the log lines', async () => {
    const { p, base } = await start({
      OTEL_TRACES_EXPORTER: 'otlp',
      OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url,
      OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json',
      OTEL_BSP_SCHEDULE_DELAY: '100',
      OTEL_SERVICE_NAME: 'taste-tracing-test',
    });
    const org = await createOrgWithKey(t.app);
    const res = await fetch(`${base}/api/v1/org/me`, { headers: { authorization: `Bearer ${org.key}` } });
    expect(res.status).toBe(200);

    const deadline = Date.now() + 30000;
    let server: OtlpSpan | undefined;
    while (Date.now() < deadline) {
      server = receiver.spans.find((s) => s.kind === 2 && attr(s, 'http.route') === '/api/v1/org/me');
      if (server && receiver.spans.some((s) => s.traceId === server!.traceId && attr(s, 'db.system.name')))
        break;
      if (server && receiver.spans.some((s) => s.traceId === server!.traceId && attr(s, 'db.system'))) break;
      await new Promise((r) => setTimeout(r, 100));
    }
    expect(server).toBeDefined();
    const trace = receiver.spans.filter((s) => s.traceId === server!.traceId);
    const pg = trace.filter((s) =>
      /postgres/.test(String(attr(s, 'db.system.name') ?? attr(s, 'db.system'))),
    );
    expect(pg.length).toBeGreaterThan(0);

    // The request's log line goes out through the asynchronous logger and a pipe: wait for it, as for
    // the spans (a loaded CI machine once read the output before the line had arrived). A line still
    // being written is skipped until it is whole.
    const loggedWithTrace = () =>
      p
        .output()
        .split('\n')
        .filter((l) => l.startsWith('{'))
        .some((l) => {
          try {
            const line = JSON.parse(l) as { trace_id?: string; req?: { url?: string } };
            return line.trace_id === server!.traceId && line.req?.url === '/api/v1/org/me';
          } catch {
            return false;
          }
        });
    while (Date.now() < deadline && !loggedWithTrace()) await new Promise((r) => setTimeout(r, 100));
    expect(loggedWithTrace()).toBe(true);

    p.child.kill('SIGTERM');
    expect(await p.exited).toBe(0);
    expect(p.output()).toMatch(/OTEL_SDK_MODULES=[1-9]/);
  });

  it('traces BullMQ: the enqueue in the API and the job in the worker', async () => {
    const { p, base } = await start({
      ROLE: 'all',
      QUEUE_PREFIX: `tracing-${process.pid}-${Date.now()}`,
      OTEL_TRACES_EXPORTER: 'otlp',
      OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url,
      OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json',
      OTEL_BSP_SCHEDULE_DELAY: '100',
    });
    const org = await createOrgWithKey(t.app);
    const res = await fetch(`${base}/api/v1/org/cores`, {
      method: 'POST',
      headers: { authorization: `Bearer ${org.key}`, 'content-type': 'application/json' },
      body: JSON.stringify({ name: 'Traced', images: [await colourPng('#8b5a2b')] }),
    });
    expect(res.status).toBe(202);
    const deadline = Date.now() + 60000;
    const names = () => new Set(receiver.spans.map((s) => s.name));
    while (!(names().has('add taste-generation.generate-taste') && names().has('process taste-generation'))) {
      if (Date.now() > deadline) throw new Error(`no BullMQ spans; got ${[...names()].join(', ')}`);
      await new Promise((r) => setTimeout(r, 200));
    }
    const add = receiver.spans.find((s) => s.name === 'add taste-generation.generate-taste');
    expect(add?.kind).toBe(4); // PRODUCER
    p.child.kill('SIGTERM');
    expect(await p.exited).toBe(0);
  });

  it('loads nothing of OpenTelemetry without OTEL_* variables', async () => {
    const { p, base } = await start({});
    expect((await fetch(`${base}/health/live`)).status).toBe(200);
    p.child.kill('SIGTERM');
    expect(await p.exited).toBe(0);
    expect(p.output()).toContain('OTEL_SDK_MODULES=0');
  });
});
