import request from 'supertest';
import { DataSource } from 'typeorm';
import { CoreGenerationService } from '../../src/cores/core-generation.service';
import { api } from '../support/api';
import { createOrgWithKey, startTestApp } from '../support/app';
import { colourPng, createReadyCore, waitForCore } from '../support/cores';
import { until } from '../support/services';
import { useCoresSuite } from '../support/cores-suite';

describe('cores: update (e2e)', () => {
  const s = useCoresSuite();

  describe('PATCH /cores/{id}', () => {
    it('renames without a new job and without deleting images', async () => {
      const { coreId, core } = await createReadyCore(s.t, s.org, { name: 'Before', images: [s.red] });
      const url = (core.images as { imageURL: string }[])[0].imageURL;
      const res = await s.A().patch(`/api/v1/org/cores/${coreId}`, { name: 'After' });
      expect(res.status).toBe(200);
      expect(res.body).toEqual(
        expect.objectContaining({ status: 200, id: coreId, name: 'After', coreStatus: 'ready' }),
      );
      expect(res.body.jobId).toBeUndefined();
      expect(res.body.imagesPurged).toBeUndefined();
      expect((await request(url).get('')).status).toBe(200);
    });

    it('replaces images: new job, old objects purged (old URL 404), processing then ready', async () => {
      const { coreId, jobId, core } = await createReadyCore(s.t, s.org, {
        name: 'Replace me',
        images: [s.red, s.red],
      });
      const oldUrls = (core.images as { imageURL: string }[]).map((i) => i.imageURL);
      const blue = await colourPng('#1c2541');
      const res = await s.A().patch(`/api/v1/org/cores/${coreId}`, { images: [blue], name: 'Replaced' });
      expect(res.status).toBe(200);
      expect(res.body).toEqual(
        expect.objectContaining({
          id: coreId,
          name: 'Replaced',
          jobId: expect.any(String),
          imagesPurged: 2,
          imagesFailed: 0,
        }),
      );
      expect(res.body.jobId).not.toBe(jobId);
      expect(res.body.coreStatus).toBe('processing');
      expect(res.body.taste).toBeNull();
      for (const url of oldUrls) expect((await request(url).get('')).status).toBe(404);
      const after = await waitForCore(s.t, s.org, coreId);
      expect(after.coreStatus).toBe('ready');
      expect((after.images as unknown[]).length).toBe(1);
      expect((await s.A().get(`/api/v1/org/jobs/${res.body.jobId}`)).body.jobStatus).toBe('ready');
    });

    it('400 for an empty body, a bad image, or 6 images; the core is unchanged', async () => {
      const { coreId, core } = await createReadyCore(s.t, s.org, { name: 'Stable', images: [s.red] });
      expect((await s.A().patch(`/api/v1/org/cores/${coreId}`, {})).status).toBe(400);
      const bad = await s.A().patch(`/api/v1/org/cores/${coreId}`, {
        imageUrls: [`${s.fixture.origin}/text.html`],
      });
      expect(bad.status).toBe(400);
      expect(
        (await s.A().patch(`/api/v1/org/cores/${coreId}`, { images: Array(6).fill(s.red) })).status,
      ).toBe(400);
      const more: [Record<string, unknown>, RegExp][] = [
        [{ name: '' }, /^name must not be empty$/],
        [{ name: 'n'.repeat(256) }, /name must be shorter than or equal to 255/],
        [{ imageUrls: Array(6).fill('https://localhost/a.png') }, /imageUrls must contain no more than 5/],
        [{ images: [s.red, s.red, s.red], imageUrls: Array(3).fill('https://localhost/a.png') }, /got 6/],
        [{ images: [] }, /1 to 5 images/],
      ];
      for (const [body, message] of more) {
        const res = await s.A().patch(`/api/v1/org/cores/${coreId}`, body);
        expect(res.status).toBe(400);
        expect(res.body.message).toMatch(message);
      }
      const now = await s.A().get(`/api/v1/org/cores/${coreId}`);
      expect(now.body.images).toEqual(core.images);
      expect(now.body.coreStatus).toBe('ready');
    });
  });

  describe('generation races', () => {
    it('a superseded job never overwrites the core, and a deleted core stays deleted', async () => {
      const { coreId, jobId: firstJob } = await createReadyCore(s.t, s.org, {
        name: 'Race',
        images: [s.red],
      });
      const blue = await colourPng('#1c2541');
      const replaced = await s.A().patch(`/api/v1/org/cores/${coreId}`, { images: [blue] });
      const after = await waitForCore(s.t, s.org, coreId);
      const generation = s.t.app.get(CoreGenerationService);
      // A late (duplicate) delivery of the first job: must change nothing.
      expect(await generation.run({ orgId: s.org.orgId, coreId, jobId: firstJob }, true)).toBe('done');
      const now = await s.A().get(`/api/v1/org/cores/${coreId}`);
      expect(now.body.taste).toBe(after.taste);
      expect(now.body.images).toEqual(after.images);
      expect(replaced.body.jobId).not.toBe(firstJob);

      await s.A().delete(`/api/v1/org/cores/${coreId}`);
      expect(
        await generation.run({ orgId: s.org.orgId, coreId, jobId: replaced.body.jobId as string }, true),
      ).toBe('done');
      expect((await s.A().get(`/api/v1/org/cores/${coreId}`)).status).toBe(404);
      expect((await s.A().get(`/api/v1/org/jobs/${replaced.body.jobId}`)).status).toBe(404);
    });

    // A rename while a vision model works (10-40 s) was lost: the result was written with the name the
    // job had read, so `GET /cores?query=<new name>` missed the core and core.ready named the old one.
    it('a rename during generation reaches the search text and the core.ready event', async () => {
      const t = await startTestApp({ FAULT_INJECTION: 'slow-generation' });
      try {
        const org = await createOrgWithKey(t.app);
        const ds = t.app.get(DataSource);
        await ds.query(
          `INSERT INTO webhook_endpoints (org_id, url, events, secret) VALUES ($1, 'https://hooks.example.com/x', '{core.ready}', $2)`,
          [org.orgId, `whsec_${Buffer.alloc(32, 9).toString('base64')}`],
        );
        const res = await api(t, org.key).post('/api/v1/org/cores', {
          name: 'Quillon before',
          images: [await colourPng('#6d597a')],
        });
        expect(res.status).toBe(202);
        const started = async () =>
          (
            (await ds.query('SELECT attempts FROM jobs WHERE id = $1', [res.body.jobId])) as {
              attempts: number;
            }[]
          )[0]?.attempts >= 1;
        await until('generation started (the core read)', started, 30000);
        const renamed = await api(t, org.key).patch(`/api/v1/org/cores/${res.body.coreId}`, {
          name: 'Zephyrine after',
        });
        expect(renamed.status).toBe(200);
        const ready = await waitForCore(t, org, res.body.coreId as string);
        expect(ready.name).toBe('Zephyrine after');
        const found = await api(t, org.key).get('/api/v1/org/cores?query=Zephyrine');
        expect((found.body.cores as { id: string }[]).map((c) => c.id)).toEqual([res.body.coreId]);
        const stale = await api(t, org.key).get('/api/v1/org/cores?query=Quillon');
        expect(stale.body.cores).toEqual([]);
        const events = (await ds.query(
          `SELECT payload FROM webhook_deliveries WHERE org_id = $1 AND event = 'core.ready'`,
          [org.orgId],
        )) as { payload: string }[];
        expect(events.map((e) => (JSON.parse(e.payload) as { data: { name: string } }).data.name)).toEqual([
          'Zephyrine after',
        ]);
      } finally {
        await t.close();
      }
    });
  });
});
