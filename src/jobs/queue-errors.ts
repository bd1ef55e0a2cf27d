import { getQueueToken } from '@nestjs/bullmq';
import { Logger, Provider } from '@nestjs/common';
import type { Queue } from 'bullmq';

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
