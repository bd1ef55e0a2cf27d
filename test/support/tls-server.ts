import { readFileSync } from 'node:fs';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { createServer, type Server } from 'node:https';
import type { Socket } from 'node:net';
import { join } from 'node:path';

const TLS_DIR = join(__dirname, '..', 'fixtures', 'tls');

/**
 * An HTTPS server with the test CA's `localhost` certificate (test/fixtures/tls). `close()` also
 * ends the connections still open, such as those a handler left hanging on purpose.
 */
export function createTlsServer(handle: (req: IncomingMessage, res: ServerResponse) => void): {
  server: Server;
  close: () => Promise<void>;
} {
  const sockets = new Set<Socket>();
  const server = createServer(
    { key: readFileSync(join(TLS_DIR, 'server-key.pem')), cert: readFileSync(join(TLS_DIR, 'server.pem')) },
    handle,
  );
  server.on('connection', (socket: Socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  const close = (): Promise<void> =>
    new Promise<void>((resolve) => {
      for (const socket of sockets) socket.destroy();
      server.close(() => resolve());
    });
  return { server, close };
}
