import { Injectable } from '@nestjs/common';
import { InjectDataSource, InjectRepository } from '@nestjs/typeorm';
import { DataSource, EntityManager, Repository } from 'typeorm';
import { DELIVERY_LIST_LIMIT, DeliveryEvent, DeliveryState, WebhookEvent } from './webhook.types';
import { WebhookAttemptEntity } from './webhook-attempt.entity';
import { WebhookDeliveryEntity } from './webhook-delivery.entity';
import { WebhookEndpointEntity } from './webhook-endpoint.entity';

/** A delivery with what sending it needs (the endpoint's URL and secret). */
export interface DeliveryToSend {
  id: string;
  orgId: string;
  webhookId: string;
  event: DeliveryEvent;
  payload: string;
  state: DeliveryState;
  url: string;
  secret: string;
}

export interface NewAttempt {
  orgId: string;
  webhookId: string;
  deliveryId: string;
  event: DeliveryEvent;
  attempt: number;
  at: Date;
  httpStatus: number | null;
  error: string | null;
  succeeded: boolean;
}

/** Webhook endpoints, deliveries and attempts. Every read a client can trigger is scoped by org. */
@Injectable()
export class WebhooksRepository {
  constructor(
    @InjectDataSource() private readonly dataSource: DataSource,
    @InjectRepository(WebhookEndpointEntity) private readonly endpoints: Repository<WebhookEndpointEntity>,
    @InjectRepository(WebhookDeliveryEntity) private readonly deliveries: Repository<WebhookDeliveryEntity>,
    @InjectRepository(WebhookAttemptEntity) private readonly attempts: Repository<WebhookAttemptEntity>,
  ) {}

  transaction<T>(work: (manager: EntityManager) => Promise<T>): Promise<T> {
    return this.dataSource.transaction(work);
  }

  /**
   * Counts the organization's endpoints while holding its row lock, so two parallel registrations
   * cannot both see room for one more (call inside a transaction).
   */
  async lockAndCountForOrg(orgId: string, manager: EntityManager): Promise<number> {
    await manager.query('SELECT 1 FROM organizations WHERE id = $1 FOR UPDATE', [orgId]);
    return manager.getRepository(WebhookEndpointEntity).count({ where: { orgId } });
  }

  insertEndpoint(
    row: Pick<WebhookEndpointEntity, 'orgId' | 'url' | 'events' | 'description' | 'secret'>,
    manager: EntityManager,
  ): Promise<WebhookEndpointEntity> {
    const repo = manager.getRepository(WebhookEndpointEntity);
    return repo.save(repo.create(row));
  }

  listForOrg(orgId: string): Promise<WebhookEndpointEntity[]> {
    return this.endpoints.find({ where: { orgId }, order: { createdAt: 'DESC', id: 'DESC' } });
  }

  findByIdForOrg(orgId: string, id: string): Promise<WebhookEndpointEntity | null> {
    return this.endpoints.findOne({ where: { id, orgId } });
  }

  /** The latest attempt of each of the given endpoints. */
  async lastAttempts(orgId: string, webhookIds: string[]): Promise<Map<string, WebhookAttemptEntity>> {
    if (webhookIds.length === 0) return new Map();
    const rows = await this.attempts
      .createQueryBuilder('a')
      .distinctOn(['a.webhook_id'])
      .where('a.org_id = :orgId AND a.webhook_id IN (:...webhookIds)', { orgId, webhookIds })
      .orderBy('a.webhook_id')
      .addOrderBy('a.at', 'DESC')
      .addOrderBy('a.attempt', 'DESC')
      .getMany();
    return new Map(rows.map((r) => [r.webhookId, r]));
  }

  /**
   * Deletes the endpoint (its deliveries and attempts go with it, by cascade) and returns the ids of
   * its deliveries that were still pending, so their queued jobs can be dropped. Null when not found.
   */
  async deleteForOrg(orgId: string, id: string, manager: EntityManager): Promise<string[] | null> {
    const pending = await manager
      .getRepository(WebhookDeliveryEntity)
      .find({ select: { id: true }, where: { orgId, webhookId: id, state: 'pending' } });
    const res = await manager.getRepository(WebhookEndpointEntity).delete({ id, orgId });
    return (res.affected ?? 0) > 0 ? pending.map((d) => d.id) : null;
  }

  /** The organization's endpoints subscribed to `event`. */
  subscribers(orgId: string, event: WebhookEvent, manager: EntityManager): Promise<WebhookEndpointEntity[]> {
    return manager
      .getRepository(WebhookEndpointEntity)
      .createQueryBuilder('e')
      .where('e.org_id = :orgId AND :event = ANY(e.events)', { orgId, event })
      .getMany();
  }

  async insertDeliveries(
    rows: Pick<WebhookDeliveryEntity, 'orgId' | 'webhookId' | 'event' | 'payload'>[],
    manager: EntityManager,
  ): Promise<string[]> {
    if (rows.length === 0) return [];
    const repo = manager.getRepository(WebhookDeliveryEntity);
    const saved = await repo.save(rows.map((r) => repo.create({ ...r, state: 'pending' })));
    return saved.map((d) => d.id);
  }

  /** The delivery with its endpoint's URL and secret (the only read of the secret). */
  async findForSending(deliveryId: string): Promise<DeliveryToSend | null> {
    const row = await this.deliveries
      .createQueryBuilder('d')
      .innerJoin(WebhookEndpointEntity, 'e', 'e.id = d.webhook_id AND e.org_id = d.org_id')
      .select([
        'd.id AS id',
        'd.org_id AS "orgId"',
        'd.webhook_id AS "webhookId"',
        'd.event AS event',
        'd.payload AS payload',
        'd.state AS state',
        'e.url AS url',
        'e.secret AS secret',
      ])
      .where('d.id = :deliveryId', { deliveryId })
      .getRawOne<DeliveryToSend>();
    return row ?? null;
  }

  /**
   * Records one attempt and, when it settles the delivery, its final state, in one transaction.
   * Nothing is written if the delivery was deleted meanwhile (its endpoint was removed).
   */
  async recordAttempt(attempt: NewAttempt, settle: DeliveryState | null): Promise<void> {
    await this.transaction(async (manager) => {
      const locked: unknown[] = await manager.query(
        'SELECT 1 FROM webhook_deliveries WHERE id = $1 FOR UPDATE',
        [attempt.deliveryId],
      );
      if (locked.length === 0) return;
      const repo = manager.getRepository(WebhookAttemptEntity);
      await repo.save(repo.create(attempt));
      if (settle) {
        await manager
          .getRepository(WebhookDeliveryEntity)
          .update({ id: attempt.deliveryId }, { state: settle });
      }
    });
  }

  listAttempts(orgId: string, webhookId: string): Promise<WebhookAttemptEntity[]> {
    return this.attempts.find({
      where: { orgId, webhookId },
      order: { at: 'DESC', attempt: 'DESC' },
      take: DELIVERY_LIST_LIMIT,
    });
  }

  /** Deliveries still pending that were created between `from` and `to` (the re-enqueue sweep). */
  async pendingBetween(from: Date, to: Date, limit: number): Promise<string[]> {
    const rows = await this.deliveries
      .createQueryBuilder('d')
      .select('d.id', 'id')
      .where("d.state = 'pending' AND d.created_at >= :from AND d.created_at < :to", { from, to })
      .orderBy('d.created_at', 'ASC')
      .limit(limit)
      .getRawMany<{ id: string }>();
    return rows.map((r) => r.id);
  }
}
