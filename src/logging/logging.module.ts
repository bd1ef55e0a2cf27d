import { randomUUID } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { Inject, Injectable, Module, OnApplicationShutdown } from '@nestjs/common';
import { ConfigService } from '@nestjs/config';
import { LoggerModule } from 'nestjs-pino';
import pino from 'pino';
import { STATIC_SECURITY_HEADERS } from '../common/security-headers';
import { AllConfig } from '../config/configuration';

/** The log destination (null when the level is `silent`: nothing is written). */
const LOG_DESTINATION = Symbol('LOG_DESTINATION');
type LogDestination = ReturnType<typeof pino.destination> | null;

/** Writes what is still buffered when the application closes (and pino flushes again at process exit). */
@Injectable()
class LogFlusher implements OnApplicationShutdown {
  constructor(@Inject(LOG_DESTINATION) private readonly destination: LogDestination) {}
  onApplicationShutdown(): void {
    try {
      this.destination?.flushSync();
    } catch {
      // already closed, or stdout gone: nothing left to write to
    }
  }
}

/** Lines are written in batches of about this many bytes... */
const LOG_BATCH_BYTES = 4096;
/** ...or after this long, whichever comes first. */
const LOG_FLUSH_MS = 100;

/**
 * stdout through sonic-boom in asynchronous mode (docs/decisions/0026-lean-request-path.md): a log
 * line never blocks the request that wrote it; lines are written in batches of about 4 KB (one write
 * for about ten request lines under load) and at most 100 ms after they were logged; whatever is
 * buffered is flushed synchronously when the application closes and at process exit (a SIGKILL loses
 * at most the last 100 ms).
 */
@Module({
  providers: [
    {
      provide: LOG_DESTINATION,
      inject: [ConfigService],
      useFactory: (config: ConfigService<AllConfig, true>): LogDestination =>
        config.get('app', { infer: true }).logLevel === 'silent'
          ? null
          : pino.destination({
              dest: 1,
              sync: false,
              minLength: LOG_BATCH_BYTES,
              periodicFlush: LOG_FLUSH_MS,
            }),
    },
    LogFlusher,
  ],
  exports: [LOG_DESTINATION],
})
class LogDestinationModule {}

const REDACTED = '[redacted]';
const REQUEST_SECRET_HEADERS = [
  'authorization',
  'proxy-authorization',
  'x-api-key',
  'cookie',
  'x-csrf-token',
];
const RESPONSE_SECRET_HEADERS = ['set-cookie'];

/** The headers with the secret ones replaced by `[redacted]` (a copy only when there is one). */
function withoutSecrets(
  headers: Record<string, unknown> | undefined,
  secret: readonly string[],
): Record<string, unknown> | undefined {
  if (!headers || !secret.some((name) => headers[name] !== undefined)) return headers;
  const copy = { ...headers };
  for (const name of secret) if (copy[name] !== undefined) copy[name] = REDACTED;
  return copy;
}

/**
 * A response's headers for the log: without the security headers every response carries (half a
 * kilobyte of the same text on every line) and with `set-cookie` redacted.
 */
function responseHeaders(headers: Record<string, unknown> | undefined): Record<string, unknown> | undefined {
  if (!headers) return headers;
  const logged: Record<string, unknown> = {};
  for (const name in headers) {
    if (STATIC_SECURITY_HEADERS.has(name)) continue;
    logged[name] = RESPONSE_SECRET_HEADERS.includes(name) ? REDACTED : headers[name];
  }
  return logged;
}

const REQUEST_ID = /^[A-Za-z0-9._-]{1,64}$/;
const KEY_IN_TEXT = /tpk_[0-9A-Za-z]+/g;

/**
 * A request's headers for the log: the secret ones redacted, and an API key masked in any other (a
 * client that sends its key in a header the service does not read: it was logged in clear).
 */
function requestHeaders(headers: Record<string, unknown>): Record<string, unknown> | undefined {
  const logged = withoutSecrets(headers, REQUEST_SECRET_HEADERS);
  if (!logged) return logged;
  let copy: Record<string, unknown> | undefined;
  for (const name in logged) {
    const value = logged[name];
    if (typeof value !== 'string' || !value.includes('tpk_')) continue;
    copy ??= { ...logged };
    copy[name] = value.replace(KEY_IN_TEXT, 'tpk_[redacted]');
  }
  return copy ?? logged;
}

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
      imports: [LogDestinationModule],
      inject: [ConfigService, LOG_DESTINATION],
      useFactory: (config: ConfigService<AllConfig, true>, destination: LogDestination) => {
        const app = config.get('app', { infer: true });
        const options = {
          level: app.logLevel,
          genReqId: requestId,
          // Secrets are replaced in the serializers (no per-line redaction pass over a cloned object).
          serializers: {
            req: (req: { id: string; method: string; url: string; headers: Record<string, unknown> }) => ({
              id: req.id,
              method: req.method,
              url: String(req.url).replace(KEY_IN_TEXT, 'tpk_[redacted]'),
              headers: requestHeaders(req.headers),
            }),
            res: (res: { statusCode: number; headers: Record<string, unknown> }) => ({
              statusCode: res.statusCode,
              headers: responseHeaders(res.headers),
            }),
          },
          autoLogging: { ignore: (req: IncomingMessage) => (req.url ?? '').startsWith('/health/') },
          // A 5xx answer's line without pino-http's stand-in error ("failed with status code 503" and
          // a stack of pino-http's own frames): the exception filter logged what went wrong.
          customErrorObject: (
            _req: IncomingMessage,
            _res: ServerResponse,
            err: Error,
            value: Record<string, unknown>,
          ) => {
            if (!err.message.startsWith('failed with status code ')) return value;
            const { err: _standIn, ...rest } = value;
            return rest;
          },
        };
        return { pinoHttp: destination ? [options, destination] : options };
      },
    }),
  ],
})
export class LoggingModule {}
