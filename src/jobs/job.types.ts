/** Queues, job names and their payloads. Only JobsService.enqueue adds jobs. */
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
