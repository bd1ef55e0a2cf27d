import { AuditService } from '../../src/audit/audit.service';
import { OrgContext } from '../../src/auth/org-context';
import { createOrgWithKey, startTestApp, TestApp } from '../support/app';
import { DataSource } from 'typeorm';

/** The audit log read page by page (the dashboard's CSV export) against the real table. */
describe('AuditService.iterate (e2e)', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp();
  });
  afterAll(() => t.close());

  it('reads every event once, newest first, across pages, ties and events written meanwhile', async () => {
    const org = await createOrgWithKey(t.app);
    const audit = t.app.get(AuditService);
    const ctx: OrgContext = {
      orgId: org.orgId,
      orgName: org.orgName,
      actor: { type: 'cli', id: null, label: 'test' },
      apiKeyId: null,
    };
    // Ten events in one transaction share created_at (ties broken by id), then ten more one by one.
    await t.app.get(DataSource).transaction(async (manager) => {
      for (let i = 0; i < 10; i++) await audit.record(ctx, { action: 'test.tied', metadata: { i } }, manager);
    });
    for (let i = 0; i < 10; i++) await audit.record(ctx, { action: 'test.single', metadata: { i } });
    const expected = (await audit.list(org.orgId, { limit: 1000 })).events.map((e) => e.id);
    expect(expected.length).toBeGreaterThanOrEqual(20);

    const seen: string[] = [];
    for await (const e of audit.iterate(org.orgId, {}, 3)) {
      seen.push(e.id);
      // A new event after the first page is newer than every cursor: it is neither read nor shifts one.
      if (seen.length === 3) await audit.record(ctx, { action: 'test.meanwhile' });
    }
    expect(seen).toEqual(expected);

    const tied: string[] = [];
    for await (const e of audit.iterate(org.orgId, { action: 'test.tied' }, 4)) tied.push(e.id);
    expect(tied).toHaveLength(10);
    expect(new Set(tied).size).toBe(10);
  });
});
