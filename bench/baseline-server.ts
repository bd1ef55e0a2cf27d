/**
 * Same-run baselines, each in a process of its own (`bench/baseline-server.ts MODE PORT`):
 * - `cores`: a bare `node:http` + `pg` server doing the same SQL as `GET /cores/{id}` (the key by its
 *   hash with its organization, then the core with its images, org-scoped) and answering the same
 *   fields; the ceiling the Nest request path is compared with.
 * - `floor`: reads the whole request body, parses the JSON and answers 202: the floor under which no
 *   create can go (receiving 7 MB over loopback).
 * Reads DATABASE_URL and API_KEY_PEPPER from its environment; prints `listening PORT` when ready.
 */
import { createHmac } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { Pool } from 'pg';

/** HMAC-SHA-256 of the key with the pepper, as docs/decisions/0001-api-key-format.md stores it. */
function keyHash(key: string, pepper: string): string {
  return createHmac('sha256', pepper).update(key).digest('hex');
}

function coresServer(pool: Pool, pepper: string) {
  return createServer((req: IncomingMessage, res: ServerResponse) => {
    void (async () => {
      const key = (req.headers.authorization ?? '').replace(/^Bearer /, '');
      const k = await pool.query(
        'SELECT k.id, k.org_id, k.revoked_at, o.name FROM api_keys k JOIN organizations o ON o.id = k.org_id WHERE k.key_hash = $1',
        [keyHash(key, pepper)],
      );
      if (k.rowCount === 0 || k.rows[0].revoked_at) {
        res.writeHead(401).end();
        return;
      }
      const id = (req.url ?? '').split('/').pop();
      const core = await pool.query(
        `SELECT c.*, i.url, i.caption, i.position FROM cores c LEFT JOIN core_images i ON i.core_id = c.id
         WHERE c.id = $1 AND c.org_id = $2 ORDER BY i.position`,
        [id, k.rows[0].org_id],
      );
      if (core.rowCount === 0) {
        res.writeHead(404).end();
        return;
      }
      const c = core.rows[0];
      res.writeHead(200, { 'content-type': 'application/json' }).end(
        JSON.stringify({
          status: 200,
          id: c.id,
          name: c.name,
          coreStatus: c.status,
          taste: c.taste,
          styleAttributes: c.style_attributes,
          tags: c.tags,
          images: core.rows.map((r) => ({ imageURL: r.url, caption: r.caption })),
          error: c.error,
          createdAt: c.created_at,
        }),
      );
    })().catch(() => res.writeHead(500).end());
  });
}

function floorServer() {
  return createServer((req: IncomingMessage, res: ServerResponse) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as { images?: unknown[] };
      res
        .writeHead(202, { 'content-type': 'application/json' })
        .end(JSON.stringify({ status: 202, images: body.images?.length ?? 0 }));
    });
  });
}

const [mode, port] = process.argv.slice(2);
const server =
  mode === 'cores'
    ? coresServer(
        new Pool({ connectionString: process.env.DATABASE_URL, max: 10 }),
        process.env.API_KEY_PEPPER ?? '',
      )
    : floorServer();
server.keepAliveTimeout = 60_000;
server.listen(Number(port), '127.0.0.1', () => console.log(`listening ${port}`));
