import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { INestApplication, INestApplicationContext } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { NestExpressApplication } from '@nestjs/platform-express';
import { Logger } from 'nestjs-pino';
import type { NextFunction, Request, Response } from 'express';
import { AppModule } from './app.module';
import { ApiKeyMiddleware } from './auth/api-key.middleware';
import { jsonBodyParsers } from './common/body-parsing';
import { securityHeaders } from './common/security-headers';
import { escapeUndecodableSegments } from './common/undecodable-path';
import { createValidationPipe } from './common/validation.pipe';
import { AllConfig } from './config/configuration';
import { drainAndClose } from './lifecycle/graceful-shutdown';
import { warmDatabase } from './lifecycle/warm-up';
import { requestId } from './logging/logging.module';
import { StartupQuietLogger } from './logging/startup-quiet.logger';
import { MetricsService } from './metrics/metrics.service';
import { setupSwagger } from './openapi/document';

/** Creates the configured HTTP application (used by main.ts and by the e2e tests). */
export async function createApp(config: AllConfig): Promise<NestExpressApplication> {
  const app = await NestFactory.create<NestExpressApplication>(AppModule.forRoot(config), {
    bufferLogs: true,
    bodyParser: false,
  });
  configureApp(app, config);
  return app;
}

/**
 * `ROLE=worker`: the same modules without an HTTP listener; the generation processors run in it until
 * the process is stopped.
 */
export async function startWorker(config: AllConfig): Promise<INestApplicationContext> {
  const app = await NestFactory.createApplicationContext(AppModule.forRoot(config), { bufferLogs: true });
  app.useLogger(new StartupQuietLogger(app.get(Logger)));
  return app;
}

/**
 * What `node dist/main.js` runs: the HTTP app (`ROLE=all|api`) or the worker (`ROLE=worker`, with
 * GET /metrics on METRICS_PORT when set), and the drain sequence on SIGTERM or SIGINT.
 */
export async function runProcess(
  config: AllConfig,
  onClosed: () => Promise<void>,
): Promise<{ app: INestApplicationContext; http: boolean }> {
  let app: INestApplicationContext;
  const servers: Server[] = [];
  if (config.app.role === 'worker') {
    app = await startWorker(config);
    const port = config.metrics.workerPort;
    if (port) {
      const metrics = app.get(MetricsService);
      const server = createServer((req, res) => void metrics.serveWorker(req, res));
      await new Promise<void>((resolve) => server.listen(port, '0.0.0.0', resolve));
      servers.push(server);
    }
  } else {
    const http = await createApp(config);
    await warmDatabase(http, config);
    await http.listen(config.app.port, '0.0.0.0');
    servers.push(http.getHttpServer() as Server);
    app = http;
  }
  let stopping = false;
  const stop = (signal: NodeJS.Signals): void => {
    if (stopping) return;
    stopping = true;
    app.get(Logger).log(`${signal} received`);
    // A stuck close must not keep a terminated process alive forever.
    const { shutdownDelayMs, shutdownGraceMs } = config.ops;
    setTimeout(() => process.exit(1), shutdownDelayMs + shutdownGraceMs + 15000).unref();
    drainAndClose(app, config, servers)
      .then(onClosed)
      .then(
        () => process.exit(0),
        (err: unknown) => {
          console.error(err);
          process.exit(1);
        },
      );
  };
  process.once('SIGTERM', stop);
  process.once('SIGINT', stop);
  return { app, http: config.app.role !== 'worker' };
}

export function configureApp(app: INestApplication & NestExpressApplication, config: AllConfig): void {
  app.useLogger(new StartupQuietLogger(app.get(Logger)));
  app.set('trust proxy', config.ops.trustProxy);
  app.disable('x-powered-by');
  // No ETag: a hash of every JSON body that no API client of ours sends back (If-None-Match).
  app.set('etag', false);
  app.use(app.get(MetricsService).httpMiddleware());
  app.use(securityHeaders(config));
  // Before the body parser, so even a malformed or oversized body gets a request id.
  app.use((req: IncomingMessage & { id?: string }, res: ServerResponse, next: () => void) => {
    req.id = requestId(req, res);
    next();
  });
  // A path segment that cannot be decoded reaches its route as text (the route's 404), not Express's 400.
  app.use((req: IncomingMessage, _res: ServerResponse, next: () => void) => {
    if (req.url) req.url = escapeUndecodableSegments(req.url);
    next();
  });
  // Authentication from the header before any body is read: an anonymous upload is never buffered or
  // parsed; it is answered 401 (by the Nest middleware, after the request logger) and its connection
  // closed (docs/decisions/0022-body-handling-before-auth.md).
  const apiKeys = app.get(ApiKeyMiddleware);
  app.use(['/api/v1/org', '/mcp'], (req: Request, res: Response, next: NextFunction) => {
    apiKeys.authenticateEarly(req, res).then(() => next(), next);
  });
  app.use(jsonBodyParsers(config.app.bodyLimit));
  app.useGlobalPipes(createValidationPipe());
  setupSwagger(app);
}
