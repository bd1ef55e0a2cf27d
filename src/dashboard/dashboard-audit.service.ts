import { BadRequestException, Injectable } from '@nestjs/common';
import { AuditEventEntity } from '../audit/audit-event.entity';
import { AuditService } from '../audit/audit.service';
import { OrgContext } from '../auth/org-context';
import { imagesNotRemovedIncident } from '../cores/image-incident';
import { csvRow } from './csv';

const AUDIT_PAGE_SIZE = 25;
const CSV_MAX_ROWS = 50_000;
const CSV_BATCH = 1000;

export interface AuditFilters {
  action?: string;
  /** Inclusive calendar days (UTC), YYYY-MM-DD. */
  from?: string;
  to?: string;
  page?: string;
}

export interface AuditDetail {
  label: string;
  value: string;
}

export interface AuditRow {
  id: string;
  createdAt: Date;
  actorType: string;
  actorLabel: string;
  action: string;
  targetType: string | null;
  targetId: string | null;
  details: AuditDetail[];
  /** A delete that left image objects behind is an incident (README, API in brief; cores/image-incident.ts). */
  incident: string | null;
}

export interface AuditPage {
  rows: AuditRow[];
  actions: string[];
  filters: { action: string; from: string; to: string };
  page: number;
  totalPages: number;
  total: number;
  /** Query string of the filters (without page), for pagination and export links. */
  filterQuery: string;
}

const DETAIL_LABELS: Record<string, string> = {
  name: 'Name',
  images: 'Images',
  coreName: 'Core',
  prefix: 'Key prefix',
  imagesPurged: 'Images purged',
  imagesFailed: 'Images failed',
  email: 'Email',
  role: 'Role',
};

/** The audit log as the dashboard shows and exports it: org-scoped reads through AuditService. */
@Injectable()
export class DashboardAuditService {
  constructor(private readonly audit: AuditService) {}

  async page(ctx: OrgContext, filters: AuditFilters): Promise<AuditPage> {
    const range = this.range(filters);
    const page = Math.max(1, Number(filters.page ?? '1') || 1);
    const [{ events, total }, actions] = await Promise.all([
      this.audit.list(ctx.orgId, {
        ...range,
        action: filters.action,
        limit: AUDIT_PAGE_SIZE,
        offset: (page - 1) * AUDIT_PAGE_SIZE,
      }),
      this.audit.actions(ctx.orgId),
    ]);
    const query = new URLSearchParams();
    if (filters.action) query.set('action', filters.action);
    if (filters.from) query.set('from', filters.from);
    if (filters.to) query.set('to', filters.to);
    return {
      rows: events.map((e) => this.toRow(e)),
      actions,
      filters: { action: filters.action ?? '', from: filters.from ?? '', to: filters.to ?? '' },
      page,
      total,
      totalPages: Math.max(1, Math.ceil(total / AUDIT_PAGE_SIZE)),
      filterQuery: query.toString(),
    };
  }

  /** The filtered log as CSV lines, newest first, read in batches. */
  async *csv(ctx: OrgContext, filters: AuditFilters): AsyncGenerator<string> {
    const range = this.range(filters);
    yield csvRow([
      'time',
      'actor_type',
      'actor',
      'action',
      'target_type',
      'target_id',
      'incident',
      'details',
    ]);
    let rows = 0;
    for await (const e of this.audit.iterate(ctx.orgId, { ...range, action: filters.action }, CSV_BATCH)) {
      const row = this.toRow(e);
      yield csvRow([
        e.createdAt,
        e.actorType,
        e.actorLabel,
        e.action,
        e.targetType,
        e.targetId,
        row.incident ?? '',
        JSON.stringify(e.metadata),
      ]);
      if ((rows += 1) >= CSV_MAX_ROWS) return;
    }
  }

  private range(filters: AuditFilters): { from?: Date; to?: Date } {
    const from = filters.from ? this.day(filters.from, 'from') : undefined;
    const toDay = filters.to ? this.day(filters.to, 'to') : undefined;
    const to = toDay ? new Date(toDay.getTime() + 24 * 3600 * 1000) : undefined;
    if (from && to && from >= to)
      throw new BadRequestException('The start date must not be after the end date.');
    return { from, to };
  }

  private day(value: string, field: string): Date {
    const d = new Date(`${value}T00:00:00.000Z`);
    if (Number.isNaN(d.getTime()))
      throw new BadRequestException(`${field} must be a valid date (YYYY-MM-DD).`);
    return d;
  }

  private toRow(e: AuditEventEntity): AuditRow {
    const meta = e.metadata ?? {};
    const details = Object.entries(meta)
      .filter(([, v]) => v !== null && v !== undefined && typeof v !== 'object')
      .map(([k, v]) => ({ label: DETAIL_LABELS[k] ?? k, value: String(v) }));
    const failed = Number(meta.imagesFailed ?? 0);
    const incident = e.action === 'core.deleted' && failed > 0 ? imagesNotRemovedIncident(failed) : null;
    return {
      id: e.id,
      createdAt: e.createdAt,
      actorType: e.actorType,
      actorLabel: e.actorLabel,
      action: e.action,
      targetType: e.targetType,
      targetId: e.targetId,
      details,
      incident,
    };
  }
}
