/** Queues, job names and their payloads. Only JobsService.enqueue adds jobs. */
import type { FaultPoint } from '../common/fault-injection';

export enum QueueName {
  Generation = 'taste-generation',
}

export enum JobName {
  GenerateTaste = 'generate-taste',
}

export interface JobPayloads {
  [JobName.GenerateTaste]: { orgId: string; coreId: string; jobId: string };
}

export type GenerationStatus = 'processing' | 'ready' | 'failed';
export const GENERATION_STATUSES: GenerationStatus[] = ['processing', 'ready', 'failed'];

/** Retries with exponential backoff, for transient provider failures only (see the processor). */
export const GENERATION_ATTEMPTS = 3;
export const GENERATION_BACKOFF_MS = 2000;

/**
 * Stalled-job settings of the generation worker (docs/decisions/0019). A worker holds a job's lock for
 * LOCK_MS and renews it every LOCK_MS / 2; a worker that dies (SIGKILL, OOM) stops renewing, and
 * within LOCK_MS + STALLED_INTERVAL_MS another worker's stalled check moves the job back to waiting.
 * MAX_STALLED_COUNT stalls are retried; one more fails the job, and the worker's `failed` handler
 * marks the job and its core failed. Generation is idempotent, so a re-run after a stall is safe.
 */
export const GENERATION_LOCK_MS = 20_000;
export const GENERATION_STALLED_INTERVAL_MS = 10_000;
export const GENERATION_MAX_STALLED_COUNT = 2;

/**
 * The worker's lock and stalled-check interval: the constants above, or 4 s and 1 s when a test arms
 * the `fast-stall-detection` fault point (`armedFaults`: only with `NODE_ENV=test`). Taken when the
 * processor's module loads, because its BullMQ options are a decorator's (static).
 */
export function generationStallTimes(faults: readonly string[]): {
  lockDuration: number;
  stalledInterval: number;
} {
  return faults.includes('fast-stall-detection' satisfies FaultPoint)
    ? { lockDuration: 4_000, stalledInterval: 1_000 }
    : { lockDuration: GENERATION_LOCK_MS, stalledInterval: GENERATION_STALLED_INTERVAL_MS };
}

/** The producer-side Queue (adds and look-ups, never the worker): fails fast while Redis is down. */
export const GENERATION_PRODUCER = Symbol('GENERATION_PRODUCER');
