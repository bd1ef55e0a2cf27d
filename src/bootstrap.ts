import type { IncomingMessage, ServerResponse } from 'node:http';
import { INestApplication, INestApplicationContext } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { NestExpressApplication } from '@nestjs/platform-express';
import { Logger } from 'nestjs-pino';
import type { NextFunction, Request, Response } from 'express';
import { AppModule } from './app.module';
import { ApiKeyMiddleware } from './auth/api-key.middleware';
import { jsonBodyParsers } from './common/body-parsing';
import { createValidationPipe } from './common/validation.pipe';
import { AllConfig } from './config/configuration';
import { requestId } from './logging/logging.module';
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
  app.useLogger(app.get(Logger));
  app.enableShutdownHooks();
  return app;
}

export function configureApp(app: INestApplication & NestExpressApplication, config: AllConfig): void {
  app.useLogger(app.get(Logger));
  app.set('trust proxy', 'loopback');
  app.disable('x-powered-by');
  // Before the body parser, so even a malformed or oversized body gets a request id.
  app.use((req: IncomingMessage & { id?: string }, res: ServerResponse, next: () => void) => {
    req.id = requestId(req, res);
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
  app.enableShutdownHooks();
  setupSwagger(app);
}
