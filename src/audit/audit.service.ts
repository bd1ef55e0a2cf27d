import { Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { EntityManager, QueryRunner, Repository } from 'typeorm';
import { onReplica } from '../database/replica';
import { ActorType, AuditEventEntity } from './audit-event.entity';

/**
 * Who acts, in whose organization: the part of auth's OrgContext the log records. Declared here so
 * audit/ does not import auth/ (auth records its key events through this service).
 */
export interface AuditContext {
  orgId: string;
  actor: { type: ActorType; id: string | null; label: string };
}

export interface AuditEntry {
  action: string;
  targetType?: string;
  targetId?: string;
  metadata?: Record<string, unknown>;
}

export interface AuditListOptions {
  limit?: number;
  offset?: number;
  action?: string;
  from?: Date;
  to?: Date;
}

/**
 * The organization's append-only audit log. Other modules call `record`; reads are org-scoped and go to a
 * read replica when there are any (the log is read after the fact; a new event may show a moment later).
 */
@Injectable()
export class AuditService {
  constructor(@InjectRepository(AuditEventEntity) private readonly events: Repository<AuditEventEntity>) {}

  /** Writes one event; pass the transaction's manager to make it part of a larger write. */
  async record(ctx: AuditContext, entry: AuditEntry, manager?: EntityManager): Promise<AuditEventEntity> {
    const repo = manager ? manager.getRepository(AuditEventEntity) : this.events;
    return repo.save(
      repo.create({
        orgId: ctx.orgId,
        actorType: ctx.actor.type,
        actorId: ctx.actor.id,
        actorLabel: ctx.actor.label,
        action: entry.action,
        targetType: entry.targetType ?? null,
        targetId: entry.targetId ?? null,
        metadata: entry.metadata ?? {},
      }),
    );
  }

  async list(
    orgId: string,
    opts: AuditListOptions = {},
  ): Promise<{ events: AuditEventEntity[]; total: number }> {
    const [events, total] = await onReplica(this.events.manager.connection, (runner) =>
      this.filtered(orgId, opts, runner)
        .take(Math.min(opts.limit ?? 50, 1000))
        .skip(opts.offset ?? 0)
        .getManyAndCount(),
    );
    return { events, total };
  }

  /**
   * Every matching event, newest first, read in pages of `pageSize` by keyset on (created_at, id): no
   * count and no offset per page, and events written while it runs (newer than the first page) cannot
   * shift a page. The cursor keeps created_at as PostgreSQL's text (microseconds; a Date has ms).
   */
  async *iterate(
    orgId: string,
    opts: Pick<AuditListOptions, 'action' | 'from' | 'to'> = {},
    pageSize = 1000,
  ): AsyncGenerator<AuditEventEntity> {
    let cursor: { at: string; id: string } | undefined;
    // One replica connection for the whole export, so its pages read one replica's history in order.
    const runner = this.events.manager.connection.createQueryRunner('slave');
    try {
      for (;;) {
        const qb = this.filtered(orgId, opts, runner)
          .take(pageSize)
          .addSelect('e.created_at::text', 'cursor_at');
        if (cursor)
          qb.andWhere('(e.created_at, e.id) < (CAST(:at AS timestamptz), CAST(:id AS uuid))', cursor);
        const { entities, raw } = await qb.getRawAndEntities<{ cursor_at: string }>();
        yield* entities;
        if (entities.length < pageSize) return;
        cursor = { at: raw[raw.length - 1].cursor_at, id: entities[entities.length - 1].id };
      }
    } finally {
      await runner.release();
    }
  }

  /** The organization's events matching the filters, newest first (ties by id). */
  private filtered(
    orgId: string,
    opts: Pick<AuditListOptions, 'action' | 'from' | 'to'>,
    runner: QueryRunner,
  ) {
    const qb = this.events
      .createQueryBuilder('e', runner)
      .where('e.org_id = :orgId', { orgId })
      .orderBy('e.created_at', 'DESC')
      .addOrderBy('e.id', 'DESC');
    if (opts.action) qb.andWhere('e.action = :action', { action: opts.action });
    if (opts.from) qb.andWhere('e.created_at >= :from', { from: opts.from });
    if (opts.to) qb.andWhere('e.created_at < :to', { to: opts.to });
    return qb;
  }

  async actions(orgId: string): Promise<string[]> {
    const rows = await onReplica(this.events.manager.connection, (runner) =>
      this.events
        .createQueryBuilder('e', runner)
        .select('DISTINCT e.action', 'action')
        .where('e.org_id = :orgId', { orgId })
        .orderBy('action')
        .getRawMany<{ action: string }>(),
    );
    return rows.map((r) => r.action);
  }
}
