import { request } from 'undici';
import { Webhook } from 'standardwebhooks';
import { SafeOutbound } from '../storage/safe-outbound';

export interface AttemptOutcome {
  httpStatus: number | null;
  /** A short reason when the attempt failed. */
  error: string | null;
  succeeded: boolean;
}

const USER_AGENT = 'TasteProfile-Webhooks/1.0';
const MAX_ERROR_LENGTH = 255;

/**
 * Sends one signed attempt of a delivery through the shared outbound policy (the URL re-checked,
 * public addresses checked at connect time, no redirect followed). Never throws: every failure is an
 * outcome with a reason. Success is a 2xx answer within the timeout.
 */
export class WebhookSender {
  constructor(private readonly outbound: SafeOutbound) {}

  /** Sends the attempt signed with `timestamp` (its `webhook-timestamp`). */
  async send(
    url: string,
    secret: string,
    deliveryId: string,
    payload: string,
    timestamp: Date,
  ): Promise<AttemptOutcome> {
    const signal = AbortSignal.timeout(this.outbound.timeoutMs);
    try {
      const target = this.outbound.checkUrl(url);
      const signature = new Webhook(secret).sign(deliveryId, timestamp, payload);
      const res = await request(target, {
        method: 'POST',
        dispatcher: this.outbound.dispatcher,
        signal,
        body: payload,
        headers: {
          'content-type': 'application/json',
          'user-agent': USER_AGENT,
          'webhook-id': deliveryId,
          'webhook-timestamp': String(Math.floor(timestamp.getTime() / 1000)),
          'webhook-signature': signature,
        },
      });
      await res.body.dump();
      const httpStatus = res.statusCode;
      if (httpStatus >= 200 && httpStatus < 300) return { httpStatus, error: null, succeeded: true };
      const error =
        httpStatus >= 300 && httpStatus < 400
          ? `redirect (HTTP ${httpStatus}) not followed`
          : `endpoint answered HTTP ${httpStatus}`;
      return { httpStatus, error, succeeded: false };
    } catch (err) {
      const reason = this.outbound.failure(err, signal).message;
      return { httpStatus: null, error: reason.slice(0, MAX_ERROR_LENGTH), succeeded: false };
    }
  }

  close(): Promise<void> {
    return this.outbound.close();
  }
}
