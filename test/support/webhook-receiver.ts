import type { IncomingMessage, ServerResponse } from 'node:http';
import { createTlsServer } from './tls-server';

/** One request the receiver got: path, headers (lower case) and the raw body. */
export interface ReceivedRequest {
  path: string;
  headers: Record<string, string>;
  body: string;
}

/** How to answer the nth request (0-based) to a path: a status, or `hang` (never answer). */
export type Answer = number | 'hang';

export interface WebhookReceiver {
  port: number;
  /** `https://localhost:PORT` */
  origin: string;
  requests: ReceivedRequest[];
  /** Requests to `path`, in arrival order. */
  to(path: string): ReceivedRequest[];
  /** Resolves once `path` received `count` requests (polls; fails after `timeoutMs`). */
  waitFor(path: string, count: number, timeoutMs?: number): Promise<ReceivedRequest[]>;
  close(): Promise<void>;
}

/**
 * A local HTTPS webhook receiver with the test CA's `localhost` certificate (the test command sets
 * NODE_EXTRA_CA_CERTS). `answers` maps a path to the answers of its successive requests (the last
 * one repeats); unknown paths answer 204. A `/redirect` answer is a 302 to `/ok`.
 */
export async function startWebhookReceiver(answers: Record<string, Answer[]> = {}): Promise<WebhookReceiver> {
  const requests: ReceivedRequest[] = [];
  const handle = (req: IncomingMessage, res: ServerResponse) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const path = req.url ?? '/';
      const seen = requests.filter((r) => r.path === path).length;
      requests.push({
        path,
        headers: Object.fromEntries(Object.entries(req.headers).map(([k, v]) => [k, String(v)])),
        body: Buffer.concat(chunks).toString('utf8'),
      });
      const script = answers[path] ?? [204];
      const answer = script[Math.min(seen, script.length - 1)];
      if (answer === 'hang') return;
      if (answer >= 300 && answer < 400) res.writeHead(answer, { location: '/ok' });
      else res.writeHead(answer, { 'content-type': 'text/plain' });
      res.end(answer >= 300 && answer < 400 ? '' : `answer ${answer}`);
    });
  };
  const { server, close } = createTlsServer(handle);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  const to = (path: string) => requests.filter((r) => r.path === path);
  return {
    port,
    origin: `https://localhost:${port}`,
    requests,
    to,
    async waitFor(path, count, timeoutMs = 30000) {
      const deadline = Date.now() + timeoutMs;
      while (to(path).length < count) {
        if (Date.now() > deadline) {
          throw new Error(`${path}: ${to(path).length} of ${count} requests after ${timeoutMs} ms`);
        }
        await new Promise((r) => setTimeout(r, 50));
      }
      return to(path);
    },
    close,
  };
}
