/**
 * A webhook receiver for the service's Standard Webhooks deliveries (`core.ready`, `core.failed`,
 * `webhook.test`): verifies `webhook-id`, `webhook-timestamp` and `webhook-signature` with the
 * `standardwebhooks` package against the endpoint's `whsec_...` secret, then handles the event.
 *
 *   WEBHOOK_SECRET=whsec_... PORT=4000 npm run example:webhook
 *
 * It serves plain http, for a TLS-terminating proxy in front (webhook URLs must be https); with
 * TLS_CERT and TLS_KEY (PEM file paths) it serves https itself.
 *
 * A valid delivery is answered 204 (anything but 2xx makes the service retry); a missing or forged
 * signature, or a timestamp more than 5 minutes off, is answered 401 and not processed. Deliveries
 * are retried with the same `webhook-id`, so a real handler records the ids it has processed.
 */
import { readFileSync } from 'node:fs';
import { createServer as createHttpServer, IncomingMessage, RequestListener } from 'node:http';
import { createServer as createHttpsServer } from 'node:https';
import { Webhook, WebhookVerificationError } from 'standardwebhooks';

const MAX_BODY = 1024 * 1024;

interface WebhookEvent {
  type: string;
  timestamp: string;
  data: { coreId?: string; jobId?: string; name?: string; coreStatus?: string; error?: string | null };
}

function readBody(req: IncomingMessage): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    req.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size > MAX_BODY) reject(new Error('body too large'));
      else chunks.push(chunk);
    });
    req.on('end', () => resolve(Buffer.concat(chunks)));
    req.on('error', reject);
  });
}

function handle(event: WebhookEvent, deliveryId: string): void {
  const { data } = event;
  if (event.type === 'core.ready')
    console.log(`core.ready: "${data.name}" (${data.coreId}) can be searched [${deliveryId}]`);
  else if (event.type === 'core.failed')
    console.log(`core.failed: "${data.name}" (${data.coreId}): ${data.error} [${deliveryId}]`);
  else console.log(`${event.type} [${deliveryId}]`);
}

const secret = process.env.WEBHOOK_SECRET;
if (!secret) {
  console.error(
    'Set WEBHOOK_SECRET to the endpoint secret (whsec_...) shown when the webhook was registered.',
  );
  process.exit(1);
}
const webhook = new Webhook(secret);
const port = Number(process.env.PORT ?? 4000);

const onRequest: RequestListener = (req, res) => {
  if (req.method !== 'POST') {
    res.writeHead(405, { Allow: 'POST' }).end();
    return;
  }
  readBody(req).then(
    (body) => {
      let event: WebhookEvent;
      try {
        // Verify the raw bytes as received: re-serialized JSON would not match the signature.
        event = webhook.verify(body, req.headers as Record<string, string>) as WebhookEvent;
      } catch (err) {
        const reason = err instanceof WebhookVerificationError ? err.message : 'unreadable payload';
        console.error(`refused a delivery: ${reason}`);
        res.writeHead(401, { 'Content-Type': 'text/plain' }).end(`invalid signature: ${reason}\n`);
        return;
      }
      handle(event, String(req.headers['webhook-id']));
      res.writeHead(204).end();
    },
    () => res.writeHead(413).end(),
  );
};

const { TLS_CERT, TLS_KEY } = process.env;
const server =
  TLS_CERT && TLS_KEY
    ? createHttpsServer({ cert: readFileSync(TLS_CERT), key: readFileSync(TLS_KEY) }, onRequest)
    : createHttpServer(onRequest);
const scheme = TLS_CERT && TLS_KEY ? 'https' : 'http';
server.listen(port, () => console.log(`webhook receiver listening on ${scheme}://localhost:${port}`));
process.on('SIGTERM', () => server.close(() => process.exit(0)));
process.on('SIGINT', () => server.close(() => process.exit(0)));
