import { Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { EntityManager, Repository } from 'typeorm';
import { OrgContext } from '../auth/org-context';
import { AuditEventEntity } from './audit-event.entity';

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

/** The organization's append-only audit log. Other modules call `record`; reads are org-scoped. */
@Injectable()
export class AuditService {
  constructor(@InjectRepository(AuditEventEntity) private readonly events: Repository<AuditEventEntity>) {}

  /** Writes one event; pass the transaction's manager to make it part of a larger write. */
  async record(ctx: OrgContext, entry: AuditEntry, manager?: EntityManager): Promise<AuditEventEntity> {
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
    const qb = this.events
      .createQueryBuilder('e')
      .where('e.org_id = :orgId', { orgId })
      .orderBy('e.created_at', 'DESC')
      .addOrderBy('e.id', 'DESC')
      .take(Math.min(opts.limit ?? 50, 1000))
      .skip(opts.offset ?? 0);
    if (opts.action) qb.andWhere('e.action = :action', { action: opts.action });
    if (opts.from) qb.andWhere('e.created_at >= :from', { from: opts.from });
    if (opts.to) qb.andWhere('e.created_at < :to', { to: opts.to });
    const [events, total] = await qb.getManyAndCount();
    return { events, total };
  }

  async actions(orgId: string): Promise<string[]> {
    const rows = await this.events
      .createQueryBuilder('e')
      .select('DISTINCT e.action', 'action')
      .where('e.org_id = :orgId', { orgId })
      .orderBy('action')
      .getRawMany<{ action: string }>();
    return rows.map((r) => r.action);
  }
}
