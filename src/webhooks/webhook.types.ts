/** Events an endpoint can subscribe to (README, Webhooks; docs/decisions/0008-webhook-delivery-and-idempotency-keys.md). */
export const WEBHOOK_EVENTS = ['core.ready', 'core.failed'] as const;
export type WebhookEvent = (typeof WEBHOOK_EVENTS)[number];
/** Sent by POST /webhooks/{id}/test, whatever the endpoint subscribed to. */
export const WEBHOOK_TEST_EVENT = 'webhook.test';
export type DeliveryEvent = WebhookEvent | typeof WEBHOOK_TEST_EVENT;

export const MAX_WEBHOOKS_PER_ORG = 10;
export const MAX_WEBHOOK_URL_LENGTH = 2048;
export const MAX_WEBHOOK_DESCRIPTION_LENGTH = 255;
/** The deliveries list shows at most this many attempts. */
export const DELIVERY_LIST_LIMIT = 50;

export type DeliveryState = 'pending' | 'succeeded' | 'failed';

/** `data` of core.ready / core.failed. */
export interface CoreEventData {
  coreId: string;
  jobId: string;
  name: string;
  coreStatus: 'ready' | 'failed';
  error: string | null;
}

/** The BullMQ queue of deliveries (one job per delivery, BullMQ job id = delivery id). */
export const WEBHOOK_QUEUE = 'webhook-delivery';
export const DELIVER_WEBHOOK_JOB = 'deliver-webhook';
export interface DeliverWebhookPayload {
  deliveryId: string;
}

/**
 * A fail-fast handle on the webhook queue (`failFastQueue`) that the `queue_jobs` metric reads: the
 * registered queue's connection waits for Redis, and a scrape during an outage hung, and its pending
 * command then held the process's shutdown.
 */
export const WEBHOOK_QUEUE_COUNTS = Symbol('WEBHOOK_QUEUE_COUNTS');
