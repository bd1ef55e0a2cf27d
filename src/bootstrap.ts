import type { IncomingMessage, ServerResponse } from 'node:http';
import { INestApplication, INestApplicationContext } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { NestExpressApplication } from '@nestjs/platform-express';
import { Logger } from 'nestjs-pino';
import { AppModule } from './app.module';
import { securityHeaders } from './common/security-headers';
import { createValidationPipe } from './common/validation.pipe';
import { AllConfig } from './config/configuration';
import { requestId } from './logging/logging.module';
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
  app.useLogger(app.get(Logger));
  app.enableShutdownHooks();
  return app;
}

export function configureApp(app: INestApplication & NestExpressApplication, config: AllConfig): void {
  app.useLogger(app.get(Logger));
  app.set('trust proxy', config.ops.trustProxy);
  app.disable('x-powered-by');
  app.use(app.get(MetricsService).httpMiddleware());
  app.use(securityHeaders(config));
  // Before the body parser, so even a malformed or oversized body gets a request id.
  app.use((req: IncomingMessage & { id?: string }, res: ServerResponse, next: () => void) => {
    req.id = requestId(req, res);
    next();
  });
  app.useBodyParser('json', { limit: config.app.bodyLimit });
  app.useGlobalPipes(createValidationPipe());
  app.enableShutdownHooks();
  setupSwagger(app);
}
