/**
 * The SQL every hand-written or TypeORM-built repository statement issues, captured while each method
 * runs once for fixed inputs against the real test database (immich's `queries/*.sql` habit; the
 * products statements are pure builders, test/sql/products-repository.spec.ts). TypeORM's statements
 * come through its logger, the prepared reads of src/database/hot-query.ts through the pool's query().
 */
import { randomUUID } from 'node:crypto';
import type { Pool } from 'pg';
import { DataSource, Logger } from 'typeorm';
import { AuditEventEntity } from '../../src/audit/audit-event.entity';
import { AuditService } from '../../src/audit/audit.service';
import { ApiKeyEntity } from '../../src/auth/api-key.entity';
import { ApiKeysRepository } from '../../src/auth/api-keys.repository';
import type { OrgContext } from '../../src/auth/org-context';
import { CoreEntity } from '../../src/cores/core.entity';
import { CoresRepository, NewCoreImage } from '../../src/cores/cores.repository';
import { dataSourceOptions } from '../../src/database/data-source';
import { IdempotencyService } from '../../src/idempotency/idempotency.service';
import { JobEntity } from '../../src/jobs/job.entity';
import { JobsRepository } from '../../src/jobs/jobs.repository';
import { OrganizationEntity } from '../../src/organizations/organization.entity';
import { OrganizationsRepository } from '../../src/organizations/organizations.repository';
import { WebhookAttemptEntity } from '../../src/webhooks/webhook-attempt.entity';
import { WebhookDeliveryEntity } from '../../src/webhooks/webhook-delivery.entity';
import { WebhookEndpointEntity } from '../../src/webhooks/webhook-endpoint.entity';
import { WebhooksRepository } from '../../src/webhooks/webhooks.repository';
import { expectSqlSnapshot, SqlEntry } from './sql-snapshot';

/** Every statement TypeORM runs (its query runners call logQuery before each). */
class CapturingLogger implements Logger {
  statements: string[] = [];
  logQuery(query: string): void {
    this.statements.push(query);
  }
  logQueryError(): void {}
  logQuerySlow(): void {}
  logSchemaBuild(): void {}
  logMigration(): void {}
  log(): void {}
}

const IMAGE: NewCoreImage = {
  position: 0,
  storageKey: `sql-snapshot/${randomUUID()}.jpg`,
  url: 'https://images.example/0.jpg',
  contentType: 'image/jpeg',
  bytes: 1000,
  width: 100,
  height: 100,
  sha256: '0'.repeat(64),
};

describe('SQL of the repositories (test/sql/*.repository.sql)', () => {
  const logger = new CapturingLogger();
  let db: DataSource;

  /** Runs `work` and returns what it issued, as one snapshot entry. */
  async function issued(name: string, work: () => Promise<unknown>): Promise<SqlEntry> {
    logger.statements = [];
    await work();
    return { name, statements: logger.statements };
  }

  beforeAll(async () => {
    db = new DataSource({ ...dataSourceOptions(process.env.DATABASE_URL as string), logger });
    await db.initialize();
    const pool = (db.driver as unknown as { master: Pool }).master;
    const query = pool.query.bind(pool) as (...args: unknown[]) => unknown;
    // hotQuery/replicaQuery go to the pool itself, not through a TypeORM query runner.
    (pool as unknown as { query: unknown }).query = (
      config: string | { text: string },
      ...rest: unknown[]
    ) => {
      logger.statements.push(typeof config === 'string' ? config : config.text);
      return query(config, ...rest);
    };
  });

  afterAll(async () => {
    await db.destroy();
  });

  it('OrganizationsRepository, ApiKeysRepository, CoresRepository, JobsRepository, WebhooksRepository, audit and idempotency', async () => {
    const keys = new ApiKeysRepository(db.getRepository(ApiKeyEntity));
    const orgs = new OrganizationsRepository(db.getRepository(OrganizationEntity));
    const org = await orgs.insert(`SQL snapshots ${randomUUID()}`);
    const key = await keys.insert(org.id, 'snapshot key', 'tp_snap', randomUUID());
    const keyEntries = await apiKeyEntries(keys, org.id, key.id);
    const orgEntries = await organizationEntries(orgs, org.id, org.name);
    const cores = new CoresRepository(db.getRepository(CoreEntity), db);
    const jobs = new JobsRepository(db.getRepository(JobEntity));
    const { entries: coreEntries, coreId } = await coreAndJobEntries(cores, jobs, org.id);
    const webhookEntries = await webhookSql(org.id, coreId);
    const ctx: OrgContext = {
      orgId: org.id,
      orgName: org.name,
      actor: { type: 'cli', id: null, label: 'sql snapshot' },
      apiKeyId: null,
    };
    const audit = new AuditService(db.getRepository(AuditEventEntity));
    const auditEntries = [
      await issued('record', () =>
        audit.record(ctx, { action: 'core.create', targetType: 'core', targetId: coreId }),
      ),
      await issued('list: every filter', () =>
        audit.list(org.id, {
          limit: 10,
          offset: 0,
          action: 'core.create',
          from: new Date(0),
          to: new Date(),
        }),
      ),
      await issued('iterate', async () => {
        for await (const event of audit.iterate(org.id, { action: 'core.create' })) void event;
      }),
      await issued('actions', () => audit.actions(org.id)),
    ];
    const idempotency = new IdempotencyService(db);
    const idempotencyEntries = await idempotencySql(idempotency, org.id);

    expectSqlSnapshot('organizations.repository.sql', 'OrganizationsRepository', orgEntries);
    expectSqlSnapshot('api-keys.repository.sql', 'ApiKeysRepository', keyEntries);
    expectSqlSnapshot('cores.repository.sql', 'CoresRepository and JobsRepository', coreEntries);
    expectSqlSnapshot('webhooks.repository.sql', 'WebhooksRepository', webhookEntries);
    expectSqlSnapshot('audit.service.sql', 'AuditService', auditEntries);
    expectSqlSnapshot('idempotency.service.sql', 'IdempotencyService', idempotencyEntries);
  });

  async function organizationEntries(orgs: OrganizationsRepository, orgId: string, orgName: string) {
    return [
      await issued('insert', () => orgs.insert(`SQL snapshots ${randomUUID()}`)),
      await issued('findById', () => orgs.findById(orgId)),
      await issued('findOldestByName', () => orgs.findOldestByName(orgName)),
    ];
  }

  async function apiKeyEntries(keys: ApiKeysRepository, orgId: string, keyId: string) {
    return [
      await issued('insert', () => keys.insert(orgId, 'second key', 'tp_snap2', randomUUID())),
      await issued('findByHashWithOrg', () => keys.findByHashWithOrg('no such hash')),
      await issued('listForOrg', () => keys.listForOrg(orgId)),
      await issued('findByIdForOrg', () => keys.findByIdForOrg(orgId, keyId)),
      await issued('findById', () => keys.findById(keyId)),
      await issued('touchLastUsed', () => keys.touchLastUsed(keyId)),
      await issued('revoke', () => keys.revoke(orgId, keyId)),
    ];
  }

  async function coreAndJobEntries(cores: CoresRepository, jobs: JobsRepository, orgId: string) {
    let coreId = '';
    let jobId = '';
    const outcome = {
      taste: 'Quiet camel tailoring.',
      styleAttributes: ['minimalist'],
      tags: ['wool'],
      palette: [],
      patterns: ['solid'],
      captions: ['a camel coat'],
      searchText: 'snapshot camel',
    };
    const entries = [
      await issued('CoresRepository.insertCore (in a transaction)', () =>
        cores.transaction(async (m) => {
          coreId = (await cores.insertCore(orgId, 'Snapshot', 'snapshot', [IMAGE], m)).id;
        }),
      ),
      await issued('JobsRepository.insertProcessing', async () => {
        jobId = (await jobs.insertProcessing(orgId, coreId)).id;
      }),
      await issued('CoresRepository.setCurrentJob', () =>
        cores.transaction((m) => cores.setCurrentJob(coreId, jobId, m)),
      ),
      await issued('CoresRepository.findByIdForOrg', () => cores.findByIdForOrg(orgId, coreId)),
      await issued('CoresRepository.readForOrg', () => cores.readForOrg(orgId, coreId)),
      await issued('CoresRepository.readSearchProfile', () => cores.readSearchProfile(orgId, coreId)),
      await issued('CoresRepository.lockByIdForOrg', () =>
        cores.transaction((m) => cores.lockByIdForOrg(orgId, coreId, m)),
      ),
      await issued('CoresRepository.listForOrg', () => cores.listForOrg(orgId, 1, 20)),
      await issued('CoresRepository.listForOrg: with a query', () =>
        cores.listForOrg(orgId, 1, 20, 'snapshot'),
      ),
      await issued('CoresRepository.rename', () =>
        cores.transaction((m) => cores.rename(orgId, coreId, 'Renamed', 'renamed', m)),
      ),
      await issued('CoresRepository.eventFields', () => cores.eventFields(coreId, db.manager)),
      await issued('CoresRepository.referencedStorageKeys', () =>
        cores.referencedStorageKeys([IMAGE.storageKey]),
      ),
      await issued('CoresRepository.findForGeneration', () => cores.findForGeneration(coreId)),
      await issued('JobsRepository.findByIdForOrg', () => jobs.findByIdForOrg(orgId, jobId)),
      await issued('JobsRepository.findById', () => jobs.findById(jobId)),
      await issued('JobsRepository.listProcessingBefore', () => jobs.listProcessingBefore(new Date(0), 10)),
      await issued('JobsRepository.listForCore', () => jobs.listForCore(orgId, coreId)),
      await issued('JobsRepository.markStarted', () => jobs.markStarted(jobId)),
      await issued('CoresRepository.applyGeneration (one image)', () =>
        cores.transaction((m) => cores.applyGeneration(coreId, jobId, outcome, m)),
      ),
      await issued('JobsRepository.finish', () => jobs.finish(jobId, 'ready', null)),
      await issued('CoresRepository.applyFailure', () =>
        cores.transaction((m) => cores.applyFailure(coreId, jobId, 'x', m)),
      ),
      await issued('CoresRepository.lockByIdForOrg + replaceImages (one transaction)', () =>
        cores.transaction(async (m) => {
          const core = await cores.lockByIdForOrg(orgId, coreId, m);
          await cores.replaceImages(core as CoreEntity, [IMAGE], 'Replaced', 'replaced', m);
        }),
      ),
    ];
    return { entries, coreId };
  }

  async function webhookSql(orgId: string, coreId: string): Promise<SqlEntry[]> {
    const hooks = new WebhooksRepository(
      db,
      db.getRepository(WebhookEndpointEntity),
      db.getRepository(WebhookDeliveryEntity),
      db.getRepository(WebhookAttemptEntity),
    );
    let webhookId = '';
    let deliveryIds: string[] = [];
    const at = new Date();
    return [
      await issued('lockAndCountForOrg + insertEndpoint (one transaction)', () =>
        hooks.transaction(async (m) => {
          await hooks.lockAndCountForOrg(orgId, m);
          const row = {
            orgId,
            url: 'https://hooks.example/a',
            events: ['core.ready' as const],
            description: null,
            secret: 's',
          };
          webhookId = (await hooks.insertEndpoint(row, m)).id;
        }),
      ),
      await issued('listForOrg', () => hooks.listForOrg(orgId)),
      await issued('findByIdForOrg', () => hooks.findByIdForOrg(orgId, webhookId)),
      await issued('subscribers', () => hooks.subscribers(orgId, 'core.ready', db.manager)),
      await issued('insertDeliveries (one)', async () => {
        const payload = JSON.stringify({ coreId });
        deliveryIds = await hooks.insertDeliveries(
          [{ orgId, webhookId, event: 'core.ready', payload }],
          db.manager,
        );
      }),
      await issued('findForSending', () => hooks.findForSending(deliveryIds[0])),
      await issued('recordAttempt (settling)', () =>
        hooks.recordAttempt(
          {
            orgId,
            webhookId,
            deliveryId: deliveryIds[0],
            event: 'core.ready',
            attempt: 1,
            at,
            httpStatus: 200,
            error: null,
            succeeded: true,
          },
          'succeeded',
        ),
      ),
      await issued('lastAttempts', () => hooks.lastAttempts(orgId, [webhookId])),
      await issued('listAttempts', () => hooks.listAttempts(orgId, webhookId)),
      await issued('pendingBetween', () => hooks.pendingBetween(new Date(0), at, 10)),
      await issued('deleteForOrg', () => hooks.transaction((m) => hooks.deleteForOrg(orgId, webhookId, m))),
    ];
  }

  async function idempotencySql(idempotency: IdempotencyService, orgId: string): Promise<SqlEntry[]> {
    const key = `snapshot-${randomUUID()}`;
    return [
      await issued('claim: a new key', () => idempotency.claim(orgId, 'POST /cores', key, { a: 1 })),
      await issued('complete', () => idempotency.complete({ orgId, key }, 202, { id: 'x' })),
      await issued('claim: a completed key (replay)', () =>
        idempotency.claim(orgId, 'POST /cores', key, { a: 1 }),
      ),
      await issued('release', () => idempotency.release({ orgId, key })),
      await issued('sweepExpired', () => idempotency.sweepExpired()),
    ];
  }
});
