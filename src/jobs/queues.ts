import { getQueueToken } from '@nestjs/bullmq';
import { Logger, Provider } from '@nestjs/common';
import { ConnectionOptions, Queue, Telemetry } from 'bullmq';
import { redisConnectionOptions } from '../redis/redis-url';

/**
 * Listens to a queue's connection errors from the moment it exists. BullMQ prints an error that
 * nobody listens to on stderr, a raw eight-line `ECONNREFUSED` dump for each reconnection attempt
 * while Redis is away; a listener added by the service that uses the queue comes too late at a start
 * without Redis (that service waits for the database first). Logged at debug: the failed enqueues
 * and /health/ready report the outage (docs/decisions/0018-outage-policy.md).
 */
export function listenToQueueErrors(queue: Queue, name: string): Queue {
  const logger = new Logger('Queues');
  queue.on('error', (err) => logger.debug(`${name} queue: ${err.message}`));
  return queue;
}

/** A provider that attaches `listenToQueueErrors` to a registered queue as soon as it is built. */
export function queueErrorListener(queueName: string, name: string): Provider {
  return {
    provide: `${queueName}:error-listener`,
    inject: [getQueueToken(queueName)],
    useFactory: (queue: Queue) => listenToQueueErrors(queue, name),
  };
}

/** Reconnect quickly after a Redis outage (BullMQ's default backs off to 20 s between attempts). */
export const reconnectDelay = (attempt: number): number => Math.min(250 * attempt, 2000);

/**
 * A queue handle on a connection without an offline queue: while Redis is unreachable a command fails
 * at once instead of waiting in ioredis's queue, and one without an answer gives up after
 * `commandTimeoutMs` (docs/decisions/0019-stuck-job-reconciler.md). For adds that must not run after
 * the client was told 503, and for reads that must not hang (the `queue_jobs` metric): a command
 * waiting in a registered queue's offline queue also held its close, and so the process's shutdown.
 */
export function failFastQueue(
  name: string,
  opts: { redisUrl: string; prefix: string; commandTimeoutMs: number; telemetry?: Telemetry; label: string },
): Queue {
  return listenToQueueErrors(
    new Queue(name, {
      telemetry: opts.telemetry,
      connection: {
        ...redisConnectionOptions(opts.redisUrl),
        enableOfflineQueue: false,
        // Nor is a command that was in flight when the connection dropped sent again on reconnect.
        autoResendUnfulfilledCommands: false,
        maxRetriesPerRequest: 1,
        commandTimeout: opts.commandTimeoutMs,
        retryStrategy: reconnectDelay,
      } as ConnectionOptions,
      prefix: opts.prefix,
    }),
    opts.label,
  );
}
