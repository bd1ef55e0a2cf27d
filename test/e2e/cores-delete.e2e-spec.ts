import request from 'supertest';
import { AuditService } from '../../src/audit/audit.service';
import { ImageStore } from '../../src/storage';
import { createReadyCore } from '../support/cores';
import { useCoresSuite } from '../support/cores-suite';

describe('cores: delete (e2e)', () => {
  const s = useCoresSuite();

  describe('DELETE /cores/{id}', () => {
    it('deletes the core and its objects in the request and writes the audit event', async () => {
      const { coreId, core } = await createReadyCore(s.t, s.org, { name: 'Doomed', images: [s.red, s.red] });
      const urls = (core.images as { imageURL: string }[]).map((i) => i.imageURL);
      const res = await s.A().delete(`/api/v1/org/cores/${coreId}`);
      expect(res.status).toBe(200);
      expect(res.body).toEqual({ status: 200, id: coreId, deleted: true, imagesPurged: 2, imagesFailed: 0 });
      for (const url of urls) expect((await request(url).get('')).status).toBe(404);
      expect((await s.A().get(`/api/v1/org/cores/${coreId}`)).status).toBe(404);
      expect((await s.A().delete(`/api/v1/org/cores/${coreId}`)).status).toBe(404);
      const { events } = await s.t.app.get(AuditService).list(s.org.orgId, { action: 'core.deleted' });
      const event = events.find((e) => e.targetId === coreId);
      expect(event).toBeDefined();
      expect(event?.actorType).toBe('api_key');
      expect(event?.actorId).toBe(s.org.keyId);
      expect(event?.metadata).toEqual({ coreName: 'Doomed', images: 2, imagesPurged: 2, imagesFailed: 0 });
    });
  });

  describe('DELETE when an image object cannot be removed', () => {
    it('still deletes the core, reports imagesFailed and records the incident in the audit log', async () => {
      const { coreId } = await createReadyCore(s.t, s.org, { name: 'Sticky', images: [s.red, s.red] });
      const store = s.t.app.get(ImageStore);
      const remove = store.delete.bind(store);
      let calls = 0;
      store.delete = (key: string) => {
        calls += 1;
        return calls === 1 ? Promise.reject(new Error('storage unavailable')) : remove(key);
      };
      try {
        const res = await s.A().delete(`/api/v1/org/cores/${coreId}`);
        expect(res.status).toBe(200);
        expect(res.body).toEqual({
          status: 200,
          id: coreId,
          deleted: true,
          imagesPurged: 1,
          imagesFailed: 1,
        });
      } finally {
        store.delete = remove;
      }
      expect((await s.A().get(`/api/v1/org/cores/${coreId}`)).status).toBe(404);
      const { events } = await s.t.app.get(AuditService).list(s.org.orgId, { action: 'core.deleted' });
      expect(events.find((e) => e.targetId === coreId)?.metadata).toEqual({
        coreName: 'Sticky',
        images: 2,
        imagesPurged: 1,
        imagesFailed: 1,
      });
    });
  });
});
