import { AuditEventEntity } from '../audit/audit-event.entity';
import { AuditService } from '../audit/audit.service';
import { OrgContext } from '../auth/org-context';
import { csvCell, csvRow } from './csv';
import { DashboardAuditService } from './dashboard-audit.service';
import { csrfTokensMatch, newCsrfToken } from './csrf';
import { safeNext } from './dashboard-helpers';

const ctx: OrgContext = {
  orgId: '00000000-0000-4000-8000-000000000001',
  orgName: 'Acme',
  actor: { type: 'user', id: 'u1', label: 'a@example.com' },
  apiKeyId: null,
};

function event(action: string, metadata: Record<string, unknown>): AuditEventEntity {
  return Object.assign(new AuditEventEntity(), {
    id: 'e1',
    orgId: ctx.orgId,
    actorType: 'user',
    actorId: 'u1',
    actorLabel: 'a@example.com',
    action,
    targetType: 'core',
    targetId: 'c1',
    metadata,
    createdAt: new Date('2025-01-02T03:04:05Z'),
  });
}

describe('DashboardAuditService', () => {
  const list = jest.fn();
  const actions = jest.fn();
  const iterated: AuditEventEntity[] = [];
  const iterate = jest.fn(async function* () {
    yield* iterated;
  });
  const service = new DashboardAuditService({ list, actions, iterate } as unknown as AuditService);

  beforeEach(() => {
    list.mockReset();
    actions.mockReset().mockResolvedValue(['core.deleted']);
  });

  it('highlights a core deletion with failed image removals as an incident', async () => {
    list.mockResolvedValue({
      events: [
        event('core.deleted', { coreName: 'X', imagesPurged: 1, imagesFailed: 2 }),
        event('core.deleted', { coreName: 'Y', imagesPurged: 3, imagesFailed: 0 }),
      ],
      total: 2,
    });
    const page = await service.page(ctx, {
      action: 'core.deleted',
      from: '2025-01-01',
      to: '2025-01-02',
      page: '2',
    });
    expect(page.rows[0].incident).toMatch(/2 image objects could not be removed/);
    expect(page.rows[1].incident).toBeNull();
    expect(page.rows[0].details).toEqual(
      expect.arrayContaining([
        { label: 'Core', value: 'X' },
        { label: 'Images failed', value: '2' },
      ]),
    );
    expect(list).toHaveBeenCalledWith(ctx.orgId, {
      action: 'core.deleted',
      from: new Date('2025-01-01T00:00:00Z'),
      to: new Date('2025-01-03T00:00:00Z'),
      limit: 25,
      offset: 25,
    });
    expect(page.filterQuery).toBe('action=core.deleted&from=2025-01-01&to=2025-01-02');
  });

  it('refuses a start date after the end date', async () => {
    await expect(service.page(ctx, { from: '2025-02-01', to: '2025-01-01' })).rejects.toThrow(/start date/);
  });

  it('exports CSV with a header row and escaped cells', async () => {
    iterated.splice(0, iterated.length, event('core.deleted', { coreName: 'say "hi", =1' }));
    const lines: string[] = [];
    for await (const line of service.csv(ctx, { action: 'core.deleted' })) lines.push(line);
    expect(iterate).toHaveBeenCalledWith(ctx.orgId, { action: 'core.deleted' }, 1000);
    expect(lines).toHaveLength(2);
    expect(lines[0]).toBe(
      '"time","actor_type","actor","action","target_type","target_id","incident","details"\r\n',
    );
    expect(lines[1]).toContain('"2025-01-02T03:04:05.000Z","user","a@example.com","core.deleted"');
    expect(lines[1]).toContain('""coreName"":""say \\""hi\\"", =1""');
  });
});

describe('dashboard helpers', () => {
  it('neutralises spreadsheet formulas and quotes CSV cells', () => {
    expect(csvCell('=SUM(A1)')).toBe(`"'=SUM(A1)"`);
    expect(csvCell(null)).toBe('""');
    expect(csvRow(['a"b', 1])).toBe('"a""b","1"\r\n');
  });

  it('compares CSRF tokens exactly', () => {
    const token = newCsrfToken();
    expect(csrfTokensMatch(token, token)).toBe(true);
    expect(csrfTokensMatch(token, token.slice(1))).toBe(false);
    expect(csrfTokensMatch(token, undefined)).toBe(false);
    expect(csrfTokensMatch(undefined, undefined)).toBe(false);
  });

  it('accepts only local dashboard paths after sign-in', () => {
    expect(safeNext('/dashboard/keys')).toBe('/dashboard/keys');
    expect(safeNext('/dashboard?x=1')).toBe('/dashboard?x=1');
    expect(safeNext('//evil.example/dashboard')).toBe('/dashboard');
    expect(safeNext('https://evil.example/dashboard')).toBe('/dashboard');
    expect(safeNext('/dashboardx')).toBe('/dashboard');
    expect(safeNext(undefined)).toBe('/dashboard');
  });
});
