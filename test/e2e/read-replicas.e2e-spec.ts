import { Client } from 'pg';
import request from 'supertest';
import { DataSource } from 'typeorm';
import { AuditService } from '../../src/audit/audit.service';
import { dataSourceOptions } from '../../src/database/data-source';
import { CatalogueWriter } from '../../src/products/catalogue-writer';
import { createOrgWithKey, OrgWithKey, startTestApp, TestApp } from '../support/app';
import { colourPng, createReadyCore, waitForCore } from '../support/cores';
import { ReplicatedCluster, startReplicatedCluster } from '../support/pg-replica';

/**
 * DATABASE_REPLICA_URLS against a real streaming replica (its own primary and replica clusters started
 * here). Replay on the replica is paused to make it lag: what the service then reads from the replica
 * misses the newest rows, what it reads from the primary does not.
 */
describe('read replicas (e2e, a real PostgreSQL streaming replica)', () => {
  let cluster: ReplicatedCluster;
  let t: TestApp;
  let org: OrgWithKey;
  let coreId: string;
  let primary: Client;
  let replica: Client;

  const api = () => request(t.app.getHttpServer());
  const pauseReplay = () => replica.query('SELECT pg_wal_replay_pause()');
  const resumeReplay = () => replica.query('SELECT pg_wal_replay_resume()');
  const countOn = async (db: Client, sql: string, params: unknown[]) =>
    Number((await db.query(`SELECT count(*) AS n FROM ${sql}`, params)).rows[0].n);

  beforeAll(async () => {
    cluster = await startReplicatedCluster(['taste']);
    const ds = new DataSource(dataSourceOptions(cluster.primaryUrl('taste')));
    await ds.initialize();
    await ds.runMigrations({ transaction: 'each' });
    await ds.destroy();
    await cluster.catchUp();
    primary = new Client({ connectionString: cluster.primaryUrl('taste') });
    replica = new Client({ connectionString: cluster.replicaUrl('taste') });
    await primary.connect();
    await replica.connect();
    t = await startTestApp({
      DATABASE_URL: cluster.primaryUrl('taste'),
      DATABASE_REPLICA_URLS: cluster.replicaUrl('taste'),
    });
    org = await createOrgWithKey(t.app);
    ({ coreId } = await createReadyCore(t, org, { name: 'Camel', images: [await colourPng('#c19a6b')] }));
  }, 240000);

  afterAll(async () => {
    await resumeReplay().catch(() => undefined);
    await t?.close();
    await primary?.end();
    await replica?.end();
    cluster?.stop();
  });

  it('is a real replica: read-only, and it replays what the primary writes', async () => {
    await expect(replica.query('CREATE TABLE nope (id int)')).rejects.toThrow(/read-only/);
    await cluster.catchUp();
    expect(await countOn(replica, 'cores WHERE id = $1', [coreId])).toBe(1);
  });

  it('product search reads the replica: a product written to the primary is found once the replica has it', async () => {
    const probe = `Zebrawool replica probe coat ${Date.now()}`;
    const search = () =>
      api()
        .post(`/api/v1/org/cores/${coreId}/products`)
        .set('Authorization', `Bearer ${org.key}`)
        .send({ query: 'zebrawool' })
        .expect(200);
    const titles = (res: request.Response) => (res.body.products as { title: string }[]).map((p) => p.title);
    await cluster.catchUp();
    await pauseReplay();
    try {
      await t.app.get(CatalogueWriter).writeChunk([
        {
          externalId: `replica-probe-${Date.now()}`,
          title: probe,
          designer: 'Probe',
          description: 'A zebrawool coat written while the replica lags.',
          price: 120,
          currency: 'USD',
          url: 'https://shop.example.com/probe',
          mediaUrl: 'https://shop.example.com/probe.jpg',
          mediaUrlAlt: null,
          gender: 'unisex',
          colour: 'camel',
          material: 'wool',
          pattern: null,
          category: 'coats',
          availability: 'in_stock',
          colourL: null,
          colourA: null,
          colourB: null,
          colourFamily: null,
        },
      ]);
      // The write went to the primary; the paused replica does not have it.
      expect(await countOn(primary, 'products WHERE title = $1', [probe])).toBe(1);
      expect(await countOn(replica, 'products WHERE title = $1', [probe])).toBe(0);

      expect(titles(await search())).not.toContain(probe);
    } finally {
      await resumeReplay();
    }
    await cluster.catchUp();
    expect(titles(await search())).toContain(probe);
  }, 60000);

  it('writes and reads-after-write stay on the primary while the replica lags; the audit log reads the replica', async () => {
    await cluster.catchUp();
    await pauseReplay();
    try {
      const created = await api()
        .post('/api/v1/org/cores')
        .set('Authorization', `Bearer ${org.key}`)
        .send({ name: 'Written while lagging', images: [await colourPng('#1f2a44')] })
        .expect(202);
      const id = created.body.coreId as string;
      expect(await countOn(primary, 'cores WHERE id = $1', [id])).toBe(1);
      expect(await countOn(replica, 'cores WHERE id = $1', [id])).toBe(0);

      // GET right after the create, the job, the list and the generation result all read the primary.
      await api().get(`/api/v1/org/cores/${id}`).set('Authorization', `Bearer ${org.key}`).expect(200);
      await api()
        .get(`/api/v1/org/jobs/${created.body.jobId}`)
        .set('Authorization', `Bearer ${org.key}`)
        .expect(200);
      const list = await api().get('/api/v1/org/cores').set('Authorization', `Bearer ${org.key}`).expect(200);
      expect(list.body.cores.map((c: { id: string }) => c.id)).toContain(id);
      expect((await waitForCore(t, org, id)).coreStatus).toBe('ready');

      await api().delete(`/api/v1/org/cores/${id}`).set('Authorization', `Bearer ${org.key}`).expect(200);
      expect(
        await countOn(primary, `audit_events WHERE action = 'core.deleted' AND target_id = $1`, [id]),
      ).toBe(1);
      const audit = t.app.get(AuditService);
      const deletedIn = async () =>
        (await audit.list(org.orgId)).events.filter((e) => e.action === 'core.deleted' && e.targetId === id);
      expect(await deletedIn()).toHaveLength(0);

      await resumeReplay();
      await cluster.catchUp();
      expect(await deletedIn()).toHaveLength(1);
    } finally {
      await resumeReplay();
    }
  }, 90000);
});
