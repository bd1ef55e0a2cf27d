import { randomUUID } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { Module } from '@nestjs/common';
import { ConfigService } from '@nestjs/config';
import { LoggerModule } from 'nestjs-pino';
import { AllConfig } from '../config/configuration';

const REQUEST_ID = /^[A-Za-z0-9._-]{1,64}$/;
const KEY_IN_TEXT = /tpk_[0-9A-Za-z]+/g;

/** A caller's X-Request-Id is kept when it is safe to log; otherwise a new UUID is issued. */
export function requestId(req: IncomingMessage & { id?: unknown }, res: ServerResponse): string {
  if (typeof req.id === 'string') return req.id;
  const given = req.headers['x-request-id'];
  const id = typeof given === 'string' && REQUEST_ID.test(given) ? given : randomUUID();
  res.setHeader('X-Request-Id', id);
  return id;
}

/** Structured JSON logs; secrets (bearer keys, cookies) never reach a log line. */
@Module({
  imports: [
    LoggerModule.forRootAsync({
      inject: [ConfigService],
      useFactory: (config: ConfigService<AllConfig, true>) => {
        const app = config.get('app', { infer: true });
        return {
          pinoHttp: {
            level: app.logLevel,
            genReqId: requestId,
            redact: {
              paths: [
                'req.headers.authorization',
                'req.headers.cookie',
                'req.headers["x-csrf-token"]',
                'res.headers["set-cookie"]',
              ],
              censor: '[redacted]',
            },
            serializers: {
              req: (req: { id: string; method: string; url: string; headers: Record<string, unknown> }) => ({
                id: req.id,
                method: req.method,
                url: String(req.url).replace(KEY_IN_TEXT, 'tpk_[redacted]'),
                headers: req.headers,
              }),
            },
            autoLogging: { ignore: (req: IncomingMessage) => (req.url ?? '').startsWith('/health/') },
          },
        };
      },
    }),
  ],
})
export class LoggingModule {}
