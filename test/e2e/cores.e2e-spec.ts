import { readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import request from 'supertest';
import sharp from 'sharp';
import { AuditService } from '../../src/audit/audit.service';
import { CoreGenerationService } from '../../src/cores/core-generation.service';
import { ImageStore } from '../../src/storage';
import { api } from '../support/api';
import { createOrgWithKey, OrgWithKey, startTestApp, TestApp } from '../support/app';
import { colourPng, createReadyCore, waitForCore } from '../support/cores';
import { HttpsFixture, startHttpsFixture } from '../support/https-fixture';

function filesUnder(dir: string): string[] {
  try {
    return readdirSync(dir).flatMap((n) => {
      const p = join(dir, n);
      return statSync(p).isDirectory() ? filesUnder(p) : [p];
    });
  } catch (err) {
    // Nothing stored yet; any other error must fail the test rather than read as "no files".
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return [];
    throw err;
  }
}

describe('cores and jobs (e2e)', () => {
  let t: TestApp;
  let fixture: HttpsFixture;
  let org: OrgWithKey;
  let other: OrgWithKey;
  let red: string;

  beforeAll(async () => {
    fixture = await startHttpsFixture();
    t = await startTestApp({
      IMAGE_FETCH_ALLOWED_HOSTS: 'localhost',
      RATE_LIMIT_CREATE_PER_MIN: '100000',
      RATE_LIMIT_GENERAL_PER_MIN: '100000',
    });
    org = await createOrgWithKey(t.app, 'Cores Org');
    other = await createOrgWithKey(t.app, 'Other Org');
    red = await colourPng('#c8202f');
  });
  afterAll(async () => {
    await t.close();
    await fixture.close();
  });

  const A = () => api(t, org.key);
  const B = () => api(t, other.key);

  describe('POST /cores', () => {
    it('accepts 1 data URL image: 202 with coreId, jobId and coreStatus processing, then ready', async () => {
      const res = await A().post('/api/v1/org/cores', { name: 'Red capsule', images: [red] });
      expect(res.status).toBe(202);
      expect(res.body).toEqual({
        status: 202,
        coreId: expect.any(String),
        jobId: expect.any(String),
        coreStatus: 'processing',
      });
      const early = await A().get(`/api/v1/org/cores/${res.body.coreId}`);
      expect(early.status).toBe(200);
      expect(early.body.status).toBe(200);
      const core = await waitForCore(t, org, res.body.coreId as string);
      expect(core).toEqual(
        expect.objectContaining({
          id: res.body.coreId,
          name: 'Red capsule',
          coreStatus: 'ready',
          error: null,
        }),
      );
      expect(typeof core.taste).toBe('string');
      const images = core.images as { imageURL: string; caption: string | null }[];
      expect(images).toHaveLength(1);
      expect(typeof images[0].caption).toBe('string');
      const job = await A().get(`/api/v1/org/jobs/${res.body.jobId}`);
      expect(job.status).toBe(200);
      expect(job.body).toEqual(
        expect.objectContaining({
          status: 200,
          id: res.body.jobId,
          coreId: res.body.coreId,
          jobStatus: 'ready',
          error: null,
        }),
      );
      expect(job.body.startedAt).toEqual(expect.any(String));
      expect(job.body.finishedAt).toEqual(expect.any(String));
    });

    it('fetches https URLs (imageUrls and images together, up to 5) and strips EXIF from what it stores', async () => {
      const res = await A().post('/api/v1/org/cores', {
        name: 'Fetched',
        imageUrls: [
          `${fixture.origin}/red.png`,
          `${fixture.origin}/photo.jpg`,
          `${fixture.origin}/redirect-ok`,
        ],
        images: [red, red],
      });
      expect(res.status).toBe(202);
      const core = await waitForCore(t, org, res.body.coreId as string);
      const images = core.images as { imageURL: string }[];
      expect(images).toHaveLength(5);
      const photo = await request(images[1].imageURL).get('');
      expect(photo.status).toBe(200);
      expect(photo.headers['content-type']).toBe('image/jpeg');
      expect(photo.headers['x-content-type-options']).toBe('nosniff');
      const meta = await sharp(photo.body as Buffer).metadata();
      expect(meta.exif).toBeUndefined();
      expect(new URL(images[0].imageURL).pathname).toMatch(/^\/images\/img\/[0-9a-f]{32}\.png$/);
    });

    it('stores a large image scaled down to 1600 px on its long edge, served at that size', async () => {
      const res = await A().post('/api/v1/org/cores', {
        name: 'Large',
        images: [await colourPng('#e9c46a', 2400)],
      });
      expect(res.status).toBe(202);
      const core = await waitForCore(t, org, res.body.coreId as string);
      expect(core.coreStatus).toBe('ready');
      const served = await request((core.images as { imageURL: string }[])[0].imageURL).get('');
      expect(served.status).toBe(200);
      const meta = await sharp(served.body as Buffer).metadata();
      expect([meta.format, meta.width, meta.height]).toEqual(['png', 1600, 1600]);
    });

    const bad: [string, () => Promise<unknown>, RegExp][] = [
      ['no images at all', async () => ({ name: 'x' }), /1 to 5 images/],
      ['0 images', async () => ({ name: 'x', images: [] }), /1 to 5 images/],
      [
        '6 images across both arrays',
        async () => ({
          name: 'x',
          images: [red, red, red],
          imageUrls: Array(3).fill('https://localhost/a.png'),
        }),
        /1 to 5 images.*got 6/,
      ],
      [
        '6 data URLs',
        async () => ({ name: 'x', images: Array(6).fill(red) }),
        /images must contain no more than 5/,
      ],
      ['a missing name', async () => ({ images: [red] }), /name/],
      [
        'a 256-character name',
        async () => ({ name: 'n'.repeat(256), images: [red] }),
        /name must be shorter than or equal to 255/,
      ],
      [
        'an unknown field',
        async () => ({ name: 'x', images: [red], colour: 'red' }),
        /property colour should not exist/,
      ],
      [
        'an http URL',
        async () => ({ name: 'x', imageUrls: ['http://localhost/red.png'] }),
        /image 1 .*only https/,
      ],
      [
        'a malformed data URL',
        async () => ({ name: 'x', images: ['data:text/plain;base64,aGVsbG8='] }),
        /images must be a data URL/,
      ],
      [
        'bad base64 characters',
        async () => ({ name: 'x', images: ['data:image/png;base64,iVBOR*w0KGgo='] }),
        /image 1/,
      ],
      [
        'non-image bytes',
        async () => ({
          name: 'x',
          images: [`data:image/png;base64,${Buffer.from('definitely not a png').toString('base64')}`],
        }),
        /image 1/,
      ],
      [
        'an SVG data URL',
        async () => ({
          name: 'x',
          images: [
            `data:image/svg+xml;base64,${Buffer.from('<svg xmlns="http://www.w3.org/2000/svg" width="4" height="4"/>').toString('base64')}`,
          ],
        }),
        /image 1/,
      ],
    ];
    it.each(bad)('400 with the error body for %s', async (_label, body, message) => {
      const res = await A().post('/api/v1/org/cores', await body());
      expect(res.status).toBe(400);
      expect(res.body.status).toBe(400);
      expect(res.body.message).toMatch(message);
    });

    it.each([
      ['an SVG', '/image.svg', /image 1 .*/],
      ['an HTML page', '/text.html', /content type text\/html/],
      ['non-image bytes labelled image/png', '/fake.png', /image 1/],
      ['an image over 10 MB (Content-Length)', '/big.png', /10 MB|too large|exceeds/i],
      ['an image over 10 MB streamed without Content-Length', '/big-stream.png', /10 MB|too large|exceeds/i],
      [
        'a redirect to a loopback address not in the allow list',
        '/redirect-loopback',
        /not a public address|not allowed/,
      ],
    ])('400 for %s fetched from a URL, and nothing is left behind', async (_label, path, message) => {
      const before = filesUnder(t.config.storage.dir).length;
      const list = await A().get('/api/v1/org/cores?limit=1');
      const res = await A().post('/api/v1/org/cores', {
        name: 'x',
        images: [red],
        imageUrls: [`${fixture.origin}${path}`],
      });
      expect(res.status).toBe(400);
      expect(res.body.message).toMatch(message);
      expect(res.body).toMatchObject({ code: 'bad_request', reason: 'image_rejected' });
      expect(filesUnder(t.config.storage.dir).length).toBe(before);
      expect((await A().get('/api/v1/org/cores?limit=1')).body.total).toBe(list.body.total);
    });

    it('400 when the last of 5 images fails after the other 4 were stored: all 4 objects are removed', async () => {
      const before = filesUnder(t.config.storage.dir).length;
      const list = await A().get('/api/v1/org/cores?limit=1');
      const hitsBefore = fixture.hits.length;
      const res = await A().post('/api/v1/org/cores', {
        name: 'x',
        imageUrls: [`${fixture.origin}/photo.jpg`, `${fixture.origin}/delay/500/status/404`],
        images: [red, await colourPng('#2a9d8f', 2400), red],
      });
      expect(res.status).toBe(400);
      expect(res.body.message).toBe(
        `image 2 (${fixture.origin}/delay/500/status/404): the server answered HTTP 404`,
      );
      expect(res.body).toMatchObject({ code: 'bad_request', reason: 'image_fetch_failed' });
      expect(fixture.hits.length).toBe(hitsBefore + 2); // both URLs were fetched, at once
      expect(filesUnder(t.config.storage.dir).length).toBe(before);
      expect((await A().get('/api/v1/org/cores?limit=1')).body.total).toBe(list.body.total);
    });

    it('rejects literal loopback forms without any request reaching the server', async () => {
      const port = fixture.port;
      const forms = [
        `https://127.0.0.1:${port}/red.png`,
        `https://127.1:${port}/red.png`,
        `https://2130706433:${port}/red.png`,
        `https://[::1]:${port}/red.png`,
        `https://[::ffff:127.0.0.1]:${port}/red.png`,
      ];
      const hitsBefore = fixture.hits.length;
      for (const url of forms) {
        const res = await A().post('/api/v1/org/cores', { name: 'x', imageUrls: [url] });
        expect(res.status).toBe(400);
        expect(res.body.message).toMatch(/^image 1 /);
        expect(res.body.reason).toBe('image_rejected');
      }
      expect(fixture.hits.length).toBe(hitsBefore);
    });

    it('checks every URL before fetching any: a bad last URL costs no fetch of the first', async () => {
      const hitsBefore = fixture.hits.length;
      const res = await A().post('/api/v1/org/cores', {
        name: 'x',
        imageUrls: [`${fixture.origin}/red.png`, 'http://localhost/red.png'],
      });
      expect(res.status).toBe(400);
      expect(res.body.message).toMatch(/^image 2 /);
      expect(res.body.reason).toBe('image_rejected');
      expect(fixture.hits.length).toBe(hitsBefore);
    });
  });

  describe('GET /cores', () => {
    it('pages newest first with page, limit, total and totalPages', async () => {
      const fresh = await createOrgWithKey(t.app);
      const ids: string[] = [];
      for (const name of ['one', 'two', 'three']) {
        const res = await api(t, fresh.key).post('/api/v1/org/cores', { name, images: [red] });
        ids.push(res.body.coreId as string);
      }
      const page1 = await api(t, fresh.key).get('/api/v1/org/cores?limit=2');
      expect(page1.status).toBe(200);
      expect(page1.body).toEqual(
        expect.objectContaining({ status: 200, page: 1, limit: 2, total: 3, totalPages: 2 }),
      );
      expect((page1.body.cores as { id: string }[]).map((c) => c.id)).toEqual([ids[2], ids[1]]);
      const page2 = await api(t, fresh.key).get('/api/v1/org/cores?limit=2&page=2');
      expect((page2.body.cores as { id: string }[]).map((c) => c.id)).toEqual([ids[0]]);
      const defaults = await api(t, fresh.key).get('/api/v1/org/cores');
      expect(defaults.body).toEqual(expect.objectContaining({ page: 1, limit: 20, total: 3, totalPages: 1 }));
    });

    it.each(['limit=101', 'limit=0', 'page=0', 'limit=abc', 'page=1.5', 'limit=-3', 'unknown=1'])(
      '400 for %s',
      async (qs) => {
        const res = await A().get(`/api/v1/org/cores?${qs}`);
        expect(res.status).toBe(400);
        expect(res.body.status).toBe(400);
      },
    );

    it('searches name, tags and attributes with fashion synonyms and stemming', async () => {
      const fresh = await createOrgWithKey(t.app);
      const c = api(t, fresh.key);
      const boho = await c.post('/api/v1/org/cores', { name: 'Boho weekend dresses', images: [red] });
      const trainers = await c.post('/api/v1/org/cores', { name: 'White trainers', images: [red] });
      await c.post('/api/v1/org/cores', { name: 'Navy tailoring', images: [red] });
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
      const core = await waitForCore(t, fresh, boho.body.coreId as string);
      const tag = (core.tags as string[])[0];
      expect(tag).toBeDefined();
      expect(await find(tag)).toContain('Boho weekend dresses');
      expect(trainers.status).toBe(202);
    });
  });

  describe('PATCH /cores/{id}', () => {
    it('renames without a new job and without deleting images', async () => {
      const { coreId, core } = await createReadyCore(t, org, { name: 'Before', images: [red] });
      const url = (core.images as { imageURL: string }[])[0].imageURL;
      const res = await A().patch(`/api/v1/org/cores/${coreId}`, { name: 'After' });
      expect(res.status).toBe(200);
      expect(res.body).toEqual(
        expect.objectContaining({ status: 200, id: coreId, name: 'After', coreStatus: 'ready' }),
      );
      expect(res.body.jobId).toBeUndefined();
      expect(res.body.imagesPurged).toBeUndefined();
      expect((await request(url).get('')).status).toBe(200);
    });

    it('replaces images: new job, old objects purged (old URL 404), processing then ready', async () => {
      const { coreId, jobId, core } = await createReadyCore(t, org, {
        name: 'Replace me',
        images: [red, red],
      });
      const oldUrls = (core.images as { imageURL: string }[]).map((i) => i.imageURL);
      const blue = await colourPng('#1c2541');
      const res = await A().patch(`/api/v1/org/cores/${coreId}`, { images: [blue], name: 'Replaced' });
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
      const after = await waitForCore(t, org, coreId);
      expect(after.coreStatus).toBe('ready');
      expect((after.images as unknown[]).length).toBe(1);
      expect((await A().get(`/api/v1/org/jobs/${res.body.jobId}`)).body.jobStatus).toBe('ready');
    });

    it('400 for an empty body, a bad image, or 6 images; the core is unchanged', async () => {
      const { coreId, core } = await createReadyCore(t, org, { name: 'Stable', images: [red] });
      expect((await A().patch(`/api/v1/org/cores/${coreId}`, {})).status).toBe(400);
      const bad = await A().patch(`/api/v1/org/cores/${coreId}`, {
        imageUrls: [`${fixture.origin}/text.html`],
      });
      expect(bad.status).toBe(400);
      expect((await A().patch(`/api/v1/org/cores/${coreId}`, { images: Array(6).fill(red) })).status).toBe(
        400,
      );
      expect((await A().patch(`/api/v1/org/cores/${coreId}`, { name: '' })).status).toBe(400);
      const more: [Record<string, unknown>, RegExp][] = [
        [{ name: 'n'.repeat(256) }, /name must be shorter than or equal to 255/],
        [{ imageUrls: Array(6).fill('https://localhost/a.png') }, /imageUrls must contain no more than 5/],
        [{ images: [red, red, red], imageUrls: Array(3).fill('https://localhost/a.png') }, /got 6/],
        [{ images: [] }, /1 to 5 images/],
      ];
      for (const [body, message] of more) {
        const res = await A().patch(`/api/v1/org/cores/${coreId}`, body);
        expect(res.status).toBe(400);
        expect(res.body.message).toMatch(message);
      }
      const now = await A().get(`/api/v1/org/cores/${coreId}`);
      expect(now.body.images).toEqual(core.images);
      expect(now.body.coreStatus).toBe('ready');
    });
  });

  describe('DELETE /cores/{id}', () => {
    it('deletes the core and its objects in the request and writes the audit event', async () => {
      const { coreId, core } = await createReadyCore(t, org, { name: 'Doomed', images: [red, red] });
      const urls = (core.images as { imageURL: string }[]).map((i) => i.imageURL);
      const res = await A().delete(`/api/v1/org/cores/${coreId}`);
      expect(res.status).toBe(200);
      expect(res.body).toEqual({ status: 200, id: coreId, deleted: true, imagesPurged: 2, imagesFailed: 0 });
      for (const url of urls) expect((await request(url).get('')).status).toBe(404);
      expect((await A().get(`/api/v1/org/cores/${coreId}`)).status).toBe(404);
      expect((await A().delete(`/api/v1/org/cores/${coreId}`)).status).toBe(404);
      const { events } = await t.app.get(AuditService).list(org.orgId, { action: 'core.deleted' });
      const event = events.find((e) => e.targetId === coreId);
      expect(event).toBeDefined();
      expect(event?.actorType).toBe('api_key');
      expect(event?.actorId).toBe(org.keyId);
      expect(event?.metadata).toEqual({ coreName: 'Doomed', images: 2, imagesPurged: 2, imagesFailed: 0 });
    });
  });

  describe('DELETE when an image object cannot be removed', () => {
    it('still deletes the core, reports imagesFailed and records the incident in the audit log', async () => {
      const { coreId } = await createReadyCore(t, org, { name: 'Sticky', images: [red, red] });
      const store = t.app.get(ImageStore);
      const remove = store.delete.bind(store);
      let calls = 0;
      store.delete = (key: string) => {
        calls += 1;
        return calls === 1 ? Promise.reject(new Error('storage unavailable')) : remove(key);
      };
      try {
        const res = await A().delete(`/api/v1/org/cores/${coreId}`);
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
      expect((await A().get(`/api/v1/org/cores/${coreId}`)).status).toBe(404);
      const { events } = await t.app.get(AuditService).list(org.orgId, { action: 'core.deleted' });
      expect(events.find((e) => e.targetId === coreId)?.metadata).toEqual({
        coreName: 'Sticky',
        images: 2,
        imagesPurged: 1,
        imagesFailed: 1,
      });
    });
  });

  describe('organization isolation and ids', () => {
    it("answers 404 on every route for another organization's core and job", async () => {
      const { coreId, jobId } = await createReadyCore(t, org, { name: 'Private', images: [red] });
      expect((await B().get(`/api/v1/org/cores/${coreId}`)).status).toBe(404);
      expect((await B().patch(`/api/v1/org/cores/${coreId}`, { name: 'stolen' })).status).toBe(404);
      expect((await B().patch(`/api/v1/org/cores/${coreId}`, { images: [red] })).status).toBe(404);
      expect((await B().delete(`/api/v1/org/cores/${coreId}`)).status).toBe(404);
      expect((await B().get(`/api/v1/org/jobs/${jobId}`)).status).toBe(404);
      const list = await B().get('/api/v1/org/cores?limit=100');
      expect((list.body.cores as { id: string }[]).map((c) => c.id)).not.toContain(coreId);
      const mine = await A().get(`/api/v1/org/cores/${coreId}`);
      expect(mine.body.name).toBe('Private');
    });

    it.each(['not-a-uuid', '123', "1' OR '1'='1", '00000000-0000-4000-8000-000000000000'])(
      '404 with the error body for id %s',
      async (id) => {
        const path = encodeURIComponent(id);
        for (const res of [
          await A().get(`/api/v1/org/cores/${path}`),
          await A().patch(`/api/v1/org/cores/${path}`, { name: 'x' }),
          await A().delete(`/api/v1/org/cores/${path}`),
          await A().get(`/api/v1/org/jobs/${path}`),
        ]) {
          expect(res.status).toBe(404);
          expect(res.body.status).toBe(404);
        }
      },
    );

    it('401 on every cores and jobs route without a valid key', async () => {
      const anon = api(t, null);
      for (const res of [
        await anon.get('/api/v1/org/cores'),
        await anon.post('/api/v1/org/cores', { name: 'x', images: [red] }),
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

  describe('generation races', () => {
    it('a superseded job never overwrites the core, and a deleted core stays deleted', async () => {
      const { coreId, jobId: firstJob } = await createReadyCore(t, org, { name: 'Race', images: [red] });
      const blue = await colourPng('#1c2541');
      const replaced = await A().patch(`/api/v1/org/cores/${coreId}`, { images: [blue] });
      const after = await waitForCore(t, org, coreId);
      const generation = t.app.get(CoreGenerationService);
      // A late (duplicate) delivery of the first job: must change nothing.
      expect(await generation.run({ orgId: org.orgId, coreId, jobId: firstJob }, true)).toBe('done');
      const now = await A().get(`/api/v1/org/cores/${coreId}`);
      expect(now.body.taste).toBe(after.taste);
      expect(now.body.images).toEqual(after.images);
      expect(replaced.body.jobId).not.toBe(firstJob);

      await A().delete(`/api/v1/org/cores/${coreId}`);
      expect(
        await generation.run({ orgId: org.orgId, coreId, jobId: replaced.body.jobId as string }, true),
      ).toBe('done');
      expect((await A().get(`/api/v1/org/cores/${coreId}`)).status).toBe(404);
      expect((await A().get(`/api/v1/org/jobs/${replaced.body.jobId}`)).status).toBe(404);
    });
  });
});

describe('413 on create and patch (e2e)', () => {
  let t: TestApp;
  let org: OrgWithKey;
  beforeAll(async () => {
    t = await startTestApp({ BODY_LIMIT: '100kb' });
    org = await createOrgWithKey(t.app);
  });
  afterAll(() => t.close());

  it('413 with the error body when the body is over the limit', async () => {
    const big = `data:image/png;base64,${Buffer.alloc(200 * 1024).toString('base64')}`;
    const create = await api(t, org.key).post('/api/v1/org/cores', { name: 'big', images: [big] });
    expect(create.status).toBe(413);
    expect(create.body).toEqual(expect.objectContaining({ status: 413, message: expect.any(String) }));
    const patch = await api(t, org.key).patch('/api/v1/org/cores/00000000-0000-4000-8000-000000000000', {
      images: [big],
    });
    expect(patch.status).toBe(413);
  });
});
