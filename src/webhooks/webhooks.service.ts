import { randomBytes } from 'node:crypto';
import { InjectQueue } from '@nestjs/bullmq';
import {
  BadRequestException,
  ConflictException,
  Inject,
  Injectable,
  Logger,
  NotFoundException,
  OnModuleDestroy,
} from '@nestjs/common';
import { ConfigService } from '@nestjs/config';
import { Queue } from 'bullmq';
import { EntityManager } from 'typeorm';
import { AuditService } from '../audit/audit.service';
import { OrgContext } from '../auth/org-context';
import { AllConfig } from '../config/configuration';
import { isUuid } from '../common/validation';
import { MetricsService, QUEUE_STATES } from '../metrics/metrics.service';
import { describeUrl, OutboundRejectedError, SafeOutbound } from '../storage/safe-outbound';
import {
  WebhookCreateDto,
  WebhookCreateResponseDto,
  WebhookDeleteResponseDto,
  WebhookDeliveryListResponseDto,
  WebhookDto,
  WebhookListItemDto,
  WebhookListResponseDto,
  WebhookTestResponseDto,
} from './dto/webhook.dto';
import {
  CoreEventData,
  DELIVER_WEBHOOK_JOB,
  DeliverWebhookPayload,
  DeliveryEvent,
  MAX_WEBHOOKS_PER_ORG,
  WEBHOOK_EVENTS,
  WEBHOOK_QUEUE,
  WEBHOOK_QUEUE_COUNTS,
  WEBHOOK_TEST_EVENT,
  WebhookEvent,
} from './webhook.types';
import { WebhookEndpointEntity } from './webhook-endpoint.entity';
import { AttemptOutcome, WebhookSender } from './webhook-sender';
import { WebhooksRepository } from './webhooks.repository';

/** What the processor should do after an attempt: nothing more, or throw so BullMQ retries later. */
export type DeliveryVerdict = 'done' | 'retry';

/** The body of every event: `{ type, timestamp, data }`, serialized once and sent as is on every attempt. */
function eventBody(type: DeliveryEvent, at: Date, data: object): string {
  return JSON.stringify({ type, timestamp: at.toISOString(), data });
}

/**
 * The events an endpoint subscribes to: all when none are named, else a non-empty list without repeats
 * (the one place of the rule, for the API and for the dashboard's form, whose unticked boxes send
 * nothing).
 */
export function subscribedEvents(events: WebhookEvent[] | undefined): WebhookEvent[] {
  if (events === undefined) return [...WEBHOOK_EVENTS];
  if (events.length === 0)
    throw new BadRequestException('events should not be empty: choose at least one event.');
  if (new Set(events).size !== events.length)
    throw new BadRequestException('events must not repeat an event.');
  return events;
}

/**
 * Webhook endpoints (registration, listing, deletion, test events, delivery log) and the delivery of
 * events: rows written with the event's transaction, BullMQ jobs after the commit, one signed attempt
 * per job run, retried with exponential backoff by BullMQ (see docs/decisions/0008).
 */
@Injectable()
export class WebhooksService implements OnModuleDestroy {
  private readonly logger = new Logger(WebhooksService.name);
  private readonly outbound: SafeOutbound;
  private readonly sender: WebhookSender;
  private readonly attempts: number;
  private readonly retryBaseMs: number;

  constructor(
    private readonly repo: WebhooksRepository,
    private readonly audit: AuditService,
    @InjectQueue(WEBHOOK_QUEUE) private readonly queue: Queue<DeliverWebhookPayload>,
    @Inject(WEBHOOK_QUEUE_COUNTS) private readonly counts: Queue,
    private readonly metrics: MetricsService,
    config: ConfigService<AllConfig, true>,
  ) {
    const hooks = config.get('webhooks', { infer: true });
    this.outbound = new SafeOutbound({ allowedHosts: hooks.allowedHosts, timeoutMs: hooks.timeoutMs });
    this.sender = new WebhookSender(this.outbound);
    this.attempts = hooks.attempts;
    this.retryBaseMs = hooks.retryBaseMs;
    this.metrics.watchQueue(WEBHOOK_QUEUE, () => this.counts.getJobCounts(...QUEUE_STATES));
  }

  async create(ctx: OrgContext, dto: WebhookCreateDto): Promise<WebhookCreateResponseDto> {
    const events = subscribedEvents(dto.events);
    const url = await this.checkEndpointUrl(dto.url);
    const secret = `whsec_${randomBytes(32).toString('base64')}`;
    const endpoint = await this.repo.transaction(async (manager) => {
      const count = await this.repo.lockAndCountForOrg(ctx.orgId, manager);
      if (count >= MAX_WEBHOOKS_PER_ORG) {
        throw new ConflictException(
          `An organization can have at most ${MAX_WEBHOOKS_PER_ORG} webhook endpoints: delete one first.`,
        );
      }
      const row = await this.repo.insertEndpoint(
        {
          orgId: ctx.orgId,
          url,
          events,
          description: dto.description ?? null,
          secret,
        },
        manager,
      );
      await this.audit.record(
        ctx,
        {
          action: 'webhook.created',
          targetType: 'webhook',
          targetId: row.id,
          metadata: { url: describeUrl(url), events },
        },
        manager,
      );
      return row;
    });
    return { status: 201, ...this.toDto(endpoint), secret };
  }

  async list(ctx: OrgContext): Promise<WebhookListResponseDto> {
    return { status: 200, webhooks: await this.withLastDelivery(ctx, await this.repo.listForOrg(ctx.orgId)) };
  }

  /** One endpoint with its latest attempt (the dashboard's detail page); 404 as the other routes. */
  async get(ctx: OrgContext, id: string): Promise<WebhookListItemDto> {
    const [item] = await this.withLastDelivery(ctx, [await this.findOr404(ctx, id)]);
    return item;
  }

  /** Deletes the endpoint with its deliveries; its queued retries are dropped. */
  async remove(ctx: OrgContext, id: string): Promise<WebhookDeleteResponseDto> {
    if (!isUuid(id)) throw new NotFoundException('Webhook not found.');
    const pending = await this.repo.transaction(async (manager) => {
      const endpoint = await this.repo.findByIdForOrg(ctx.orgId, id);
      const dropped = endpoint ? await this.repo.deleteForOrg(ctx.orgId, id, manager) : null;
      if (!endpoint || !dropped) throw new NotFoundException('Webhook not found.');
      await this.audit.record(
        ctx,
        {
          action: 'webhook.deleted',
          targetType: 'webhook',
          targetId: id,
          metadata: { url: describeUrl(endpoint.url) },
        },
        manager,
      );
      return dropped;
    });
    // Jobs that are running or already gone find no delivery row and end quietly.
    await Promise.all(pending.map((deliveryId) => this.queue.remove(deliveryId).catch(() => 0)));
    return { status: 200, id, deleted: true };
  }

  /** Queues a `webhook.test` event to the endpoint, whatever events it subscribed to. */
  async sendTest(ctx: OrgContext, id: string): Promise<WebhookTestResponseDto> {
    const endpoint = await this.findOr404(ctx, id);
    const [deliveryId] = await this.repo.transaction((manager) =>
      this.repo.insertDeliveries(
        [
          {
            orgId: ctx.orgId,
            webhookId: endpoint.id,
            event: WEBHOOK_TEST_EVENT,
            payload: eventBody(WEBHOOK_TEST_EVENT, new Date(), { webhookId: endpoint.id }),
          },
        ],
        manager,
      ),
    );
    await this.enqueue([deliveryId]);
    return { status: 202, deliveryId };
  }

  async deliveries(ctx: OrgContext, id: string): Promise<WebhookDeliveryListResponseDto> {
    const endpoint = await this.findOr404(ctx, id);
    const rows = await this.repo.listAttempts(ctx.orgId, endpoint.id);
    return {
      status: 200,
      deliveries: rows.map((a) => ({
        id: a.id,
        event: a.event,
        attempt: a.attempt,
        at: a.at.toISOString(),
        httpStatus: a.httpStatus,
        error: a.error,
        succeeded: a.succeeded,
      })),
    };
  }

  /**
   * Writes the deliveries of a core event to every subscribed endpoint of the organization, inside
   * the caller's transaction (the one that commits the result). Returns their ids: pass them to
   * {@link enqueue} after the commit.
   */
  async recordCoreEvent(
    orgId: string,
    event: WebhookEvent,
    data: CoreEventData,
    manager: EntityManager,
  ): Promise<string[]> {
    const endpoints = await this.repo.subscribers(orgId, event, manager);
    if (endpoints.length === 0) return [];
    const payload = eventBody(event, new Date(), data);
    return this.repo.insertDeliveries(
      endpoints.map((e) => ({ orgId, webhookId: e.id, event, payload })),
      manager,
    );
  }

  /**
   * Adds one job per delivery (BullMQ job id = delivery id, so a second add is a no-op). A delivery
   * that could not be queued stays pending and is queued again by the worker's sweep.
   */
  async enqueue(deliveryIds: readonly string[]): Promise<void> {
    if (deliveryIds.length === 0) return;
    try {
      await this.queue.addBulk(
        deliveryIds.map((deliveryId) => ({
          name: DELIVER_WEBHOOK_JOB,
          data: { deliveryId },
          opts: {
            jobId: deliveryId,
            attempts: this.attempts,
            backoff: { type: 'exponential', delay: this.retryBaseMs },
            removeOnComplete: { age: 3600, count: 1000 },
            removeOnFail: { age: 24 * 3600 },
          },
        })),
      );
    } catch (err) {
      this.logger.warn(
        `could not queue ${deliveryIds.length} webhook deliveries, the sweep will: ${String(err)}`,
      );
    }
  }

  /**
   * One attempt of a delivery (`attempt` is 1-based). Records it, settles the delivery on success or
   * on the last attempt, and tells the processor whether to retry. A delivery whose endpoint was
   * deleted no longer exists: nothing is sent.
   *
   * This is the one place an attempt's outcome is known: `result` below is `succeeded`, `failed` (the
   * last attempt failed: given up) or `retrying`.
   */
  async deliver(deliveryId: string, attempt: number, isLastAttempt: boolean): Promise<DeliveryVerdict> {
    const delivery = await this.repo.findForSending(deliveryId);
    if (!delivery || delivery.state !== 'pending') return 'done';
    // The attempt's time is when it is sent (its webhook-timestamp), not when its answer came.
    const at = new Date();
    const outcome: AttemptOutcome = await this.sender.send(
      delivery.url,
      delivery.secret,
      delivery.id,
      delivery.payload,
      at,
    );
    const result = outcome.succeeded ? 'succeeded' : isLastAttempt ? 'failed' : 'retrying';
    this.metrics.webhookDelivery(result);
    const settle = result === 'retrying' ? null : result;
    await this.repo.recordAttempt(
      {
        orgId: delivery.orgId,
        webhookId: delivery.webhookId,
        deliveryId: delivery.id,
        event: delivery.event,
        attempt,
        at,
        httpStatus: outcome.httpStatus,
        error: outcome.error,
        succeeded: outcome.succeeded,
      },
      settle,
    );
    return settle ? 'done' : 'retry';
  }

  /** Queues again the deliveries left pending without a job (the enqueue after their commit failed). */
  async requeuePending(olderThanMs: number): Promise<number> {
    const now = Date.now();
    const ids = await this.repo.pendingBetween(
      new Date(now - 24 * 3600_000),
      new Date(now - olderThanMs),
      500,
    );
    const missing: string[] = [];
    for (const id of ids) {
      if (!(await this.queue.getJob(id))) missing.push(id);
    }
    await this.enqueue(missing);
    return missing.length;
  }

  async onModuleDestroy(): Promise<void> {
    await this.sender.close();
    await this.counts.close().catch(() => undefined);
  }

  /** 400 naming the rule when the URL may not receive events (checked again at every delivery). */
  private async checkEndpointUrl(raw: string): Promise<string> {
    // The WHATWG parser trims and drops what a URL cannot hold; the stored URL is the one given, so it
    // must be one as given.
    if (/\s/.test(raw)) throw new BadRequestException('url: must not contain spaces or line breaks.');
    try {
      const url = this.outbound.checkUrl(raw);
      await this.outbound.checkResolved(url);
      return raw;
    } catch (err) {
      if (err instanceof OutboundRejectedError) throw new BadRequestException(`url: ${err.message}`);
      throw err;
    }
  }

  private async findOr404(ctx: OrgContext, id: string): Promise<WebhookEndpointEntity> {
    const endpoint = isUuid(id) ? await this.repo.findByIdForOrg(ctx.orgId, id) : null;
    if (!endpoint) throw new NotFoundException('Webhook not found.');
    return endpoint;
  }

  private async withLastDelivery(
    ctx: OrgContext,
    endpoints: WebhookEndpointEntity[],
  ): Promise<WebhookListItemDto[]> {
    const last = await this.repo.lastAttempts(
      ctx.orgId,
      endpoints.map((e) => e.id),
    );
    return endpoints.map((e) => {
      const a = last.get(e.id);
      return {
        ...this.toDto(e),
        lastDelivery: a
          ? {
              at: a.at.toISOString(),
              event: a.event,
              httpStatus: a.httpStatus,
              attempt: a.attempt,
              succeeded: a.succeeded,
            }
          : null,
      };
    });
  }

  private toDto(e: WebhookEndpointEntity): WebhookDto {
    return {
      id: e.id,
      url: e.url,
      events: e.events,
      description: e.description,
      createdAt: e.createdAt.toISOString(),
    };
  }
}
