import { api } from '../support/api';
import { createOrgWithKey } from '../support/app';
import { waitForCore } from '../support/cores';
import { useCoresSuite } from '../support/cores-suite';

describe('cores: list (e2e)', () => {
  const s = useCoresSuite();

  describe('GET /cores', () => {
    it('pages newest first with page, limit, total and totalPages', async () => {
      const fresh = await createOrgWithKey(s.t.app);
      const ids: string[] = [];
      for (const name of ['one', 'two', 'three']) {
        const res = await api(s.t, fresh.key).post('/api/v1/org/cores', { name, images: [s.red] });
        ids.push(res.body.coreId as string);
      }
      const page1 = await api(s.t, fresh.key).get('/api/v1/org/cores?limit=2');
      expect(page1.status).toBe(200);
      expect(page1.body).toEqual(
        expect.objectContaining({ status: 200, page: 1, limit: 2, total: 3, totalPages: 2 }),
      );
      expect((page1.body.cores as { id: string }[]).map((c) => c.id)).toEqual([ids[2], ids[1]]);
      const page2 = await api(s.t, fresh.key).get('/api/v1/org/cores?limit=2&page=2');
      expect((page2.body.cores as { id: string }[]).map((c) => c.id)).toEqual([ids[0]]);
      const defaults = await api(s.t, fresh.key).get('/api/v1/org/cores');
      expect(defaults.body).toEqual(expect.objectContaining({ page: 1, limit: 20, total: 3, totalPages: 1 }));
    });

    it.each(['limit=101', 'limit=0', 'page=0', 'limit=abc', 'page=1.5', 'limit=-3', 'unknown=1'])(
      '400 for %s',
      async (qs) => {
        const res = await s.A().get(`/api/v1/org/cores?${qs}`);
        expect(res.status).toBe(400);
        expect(res.body.status).toBe(400);
      },
    );

    it('searches name, tags and attributes with fashion synonyms and stemming', async () => {
      const fresh = await createOrgWithKey(s.t.app);
      const c = api(s.t, fresh.key);
      const boho = await c.post('/api/v1/org/cores', { name: 'Boho weekend dresses', images: [s.red] });
      const trainers = await c.post('/api/v1/org/cores', { name: 'White trainers', images: [s.red] });
      await c.post('/api/v1/org/cores', { name: 'Navy tailoring', images: [s.red] });
      const find = async (q: string) =>
        (
          (await c.get(`/api/v1/org/cores?query=${encodeURIComponent(q)}`)).body.cores as {
            id: string;
            name: string;
          }[]
        ).map((x) => x.name);
      expect(await find('bohemian')).toEqual(['Boho weekend dresses']);
      expect(await find('dress')).toEqual(['Boho weekend dresses']);
      expect(await find('sneakers')).toEqual(['White trainers']);
      expect(await find('dark blue')).toEqual(['Navy tailoring']);
      expect(await find('carburettor')).toEqual([]);
      // Tags and style attributes written by generation are searchable too.
      const core = await waitForCore(s.t, fresh, boho.body.coreId as string);
      const tag = (core.tags as string[])[0];
      expect(tag).toBeDefined();
      expect(await find(tag)).toContain('Boho weekend dresses');
      expect(trainers.status).toBe(202);
    });
  });
});
