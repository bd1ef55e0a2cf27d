import { DataSource } from 'typeorm';
import { api } from '../support/api';
import { createReadyCore } from '../support/cores';
import { useCoresSuite } from '../support/cores-suite';

describe('cores: organization isolation and ids (e2e)', () => {
  const s = useCoresSuite();

  describe('organization isolation and ids', () => {
    it("answers 404 on every route for another organization's core and job", async () => {
      const { coreId, jobId } = await createReadyCore(s.t, s.org, { name: 'Private', images: [s.red] });
      expect((await s.B().get(`/api/v1/org/cores/${coreId}`)).status).toBe(404);
      expect((await s.B().patch(`/api/v1/org/cores/${coreId}`, { name: 'stolen' })).status).toBe(404);
      expect((await s.B().patch(`/api/v1/org/cores/${coreId}`, { images: [s.red] })).status).toBe(404);
      expect((await s.B().delete(`/api/v1/org/cores/${coreId}`)).status).toBe(404);
      expect((await s.B().get(`/api/v1/org/jobs/${jobId}`)).status).toBe(404);
      const list = await s.B().get('/api/v1/org/cores?limit=100');
      expect((list.body.cores as { id: string }[]).map((c) => c.id)).not.toContain(coreId);
      const mine = await s.A().get(`/api/v1/org/cores/${coreId}`);
      expect(mine.body.name).toBe('Private');
    });

    it.each(['not-a-uuid', '123', "1' OR '1'='1", '00000000-0000-4000-8000-000000000000'])(
      '404 with the error body for id %s',
      async (id) => {
        const path = encodeURIComponent(id);
        for (const res of [
          await s.A().get(`/api/v1/org/cores/${path}`),
          await s.A().patch(`/api/v1/org/cores/${path}`, { name: 'x' }),
          await s.A().delete(`/api/v1/org/cores/${path}`),
          await s.A().get(`/api/v1/org/jobs/${path}`),
        ]) {
          expect(res.status).toBe(404);
          expect(res.body.status).toBe(404);
        }
      },
    );

    // DECISIONS: "A malformed id is a 404 with the error body". An id holding a NUL character was
    // the global pipe's 400 ("id must not contain NUL characters.") on every id route.
    it("an id holding a NUL character (even an existing core's id with one appended), or undecodable: the route's 404", async () => {
      const { coreId, jobId } = await createReadyCore(s.t, s.org, { name: 'NUL ids', images: [s.red] });
      const hook = await s.A().post('/api/v1/org/webhooks', { url: 'https://93.184.216.34/hook' });
      expect(hook.status).toBe(201);
      const webhookId = hook.body.id as string;
      // And one that cannot be percent-decoded: Express answered 400 "Failed to decode param '%ZZ'".
      for (const nul of ['%00', `${coreId}%00`, `${jobId}%00`, `${webhookId}%00`, '%ZZ', `${coreId}%C3%28`]) {
        for (const [res, message] of [
          [await s.A().get(`/api/v1/org/cores/${nul}`), 'Core not found.'],
          [await s.A().patch(`/api/v1/org/cores/${nul}`, { name: 'x' }), 'Core not found.'],
          [await s.A().delete(`/api/v1/org/cores/${nul}`), 'Core not found.'],
          [await s.A().post(`/api/v1/org/cores/${nul}/products`, {}), 'Core not found.'],
          [await s.A().get(`/api/v1/org/jobs/${nul}`), 'Job not found.'],
          [await s.A().delete(`/api/v1/org/webhooks/${nul}`), 'Webhook not found.'],
          [await s.A().post(`/api/v1/org/webhooks/${nul}/test`, {}), 'Webhook not found.'],
          [await s.A().get(`/api/v1/org/webhooks/${nul}/deliveries`), 'Webhook not found.'],
        ] as const) {
          expect({ nul, status: res.status, body: res.body as unknown }).toEqual({
            nul,
            status: 404,
            body: expect.objectContaining({ status: 404, message }),
          });
        }
      }
      expect((await s.A().get(`/api/v1/org/cores/${coreId}`)).body.name).toBe('NUL ids');
      expect((await s.A().delete(`/api/v1/org/webhooks/${webhookId}`)).status).toBe(200);
    });

    // A UUID in capitals names the same core; DELETE echoed the caller's spelling (and the audit log
    // kept it), so a client matching the answer against its stored id found no match.
    it('an id in capitals: the same core, answered and audited with its canonical spelling', async () => {
      const { coreId, jobId } = await createReadyCore(s.t, s.org, { name: 'Capitals', images: [s.red] });
      const upper = coreId.toUpperCase();
      expect((await s.A().get(`/api/v1/org/cores/${upper}`)).body.id).toBe(coreId);
      expect((await s.A().get(`/api/v1/org/jobs/${jobId.toUpperCase()}`)).body.id).toBe(jobId);
      const hook = await s.A().post('/api/v1/org/webhooks', { url: 'https://93.184.216.34/capitals' });
      const removedHook = await s.A().delete(`/api/v1/org/webhooks/${String(hook.body.id).toUpperCase()}`);
      expect(removedHook.body).toEqual({ status: 200, id: hook.body.id, deleted: true });
      const removed = await s.A().delete(`/api/v1/org/cores/${upper}`);
      expect(removed.status).toBe(200);
      expect(removed.body.id).toBe(coreId);
      const audit = await s.t.app
        .get(DataSource)
        .query(`SELECT target_id FROM audit_events WHERE action = 'core.deleted' AND target_id ILIKE $1`, [
          coreId,
        ]);
      expect(audit).toEqual([{ target_id: coreId }]);
    });

    it('401 on every cores and jobs route without a valid key', async () => {
      const anon = api(s.t, null);
      for (const res of [
        await anon.get('/api/v1/org/cores'),
        await anon.post('/api/v1/org/cores', { name: 'x', images: [s.red] }),
        await anon.get('/api/v1/org/cores/x'),
        await anon.patch('/api/v1/org/cores/x', { name: 'y' }),
        await anon.delete('/api/v1/org/cores/x'),
        await anon.get('/api/v1/org/jobs/x'),
        await anon.post('/api/v1/org/cores/x/products', {}),
      ]) {
        expect(res.status).toBe(401);
      }
    });
  });
});
