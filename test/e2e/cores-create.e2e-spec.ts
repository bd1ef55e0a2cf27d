import { readFileSync } from 'node:fs';
import request from 'supertest';
import sharp from 'sharp';
import { parse } from 'yaml';
import { api } from '../support/api';
import { createOrgWithKey, OrgWithKey, startTestApp, TestApp } from '../support/app';
import { colourPng, waitForCore } from '../support/cores';
import { filesUnder, useCoresSuite } from '../support/cores-suite';

describe('cores: create (e2e)', () => {
  const s = useCoresSuite();

  describe('POST /cores', () => {
    // A customer's first call is often the document's own example: its 1x1 semi-transparent PNG was
    // accepted (202) and the core then failed for good ("image 1 has no visible content").
    it("the OpenAPI document's data URL examples make a ready core", async () => {
      const doc = parse(readFileSync('openapi/taste-profile.v1.yaml', 'utf8')) as {
        paths: Record<string, { post: { requestBody: { content: Record<string, { examples: object }> } } }>;
        components: { schemas: { CoreCreateDto: { properties: { images: { example: string[] } } } } };
      };
      const examples = doc.paths['/cores'].post.requestBody.content['application/json'].examples as Record<
        string,
        { value: { name: string; images?: string[] } }
      >;
      const bodies = [
        ...Object.values(examples)
          .map((e) => e.value)
          .filter((v) => v.images !== undefined),
        { name: 'Schema example', images: doc.components.schemas.CoreCreateDto.properties.images.example },
      ];
      expect(bodies.length).toBeGreaterThanOrEqual(2);
      for (const body of bodies) {
        const res = await s.A().post('/api/v1/org/cores', body);
        expect(res.status).toBe(202);
        const core = await waitForCore(s.t, s.org, res.body.coreId as string);
        expect({ name: body.name, status: core.coreStatus, error: core.error }).toEqual({
          name: body.name,
          status: 'ready',
          error: null,
        });
      }
    });

    it('accepts 1 data URL image: 202 with coreId, jobId and coreStatus processing, then ready', async () => {
      const res = await s.A().post('/api/v1/org/cores', { name: 'Red capsule', images: [s.red] });
      expect(res.status).toBe(202);
      expect(res.body).toEqual({
        status: 202,
        coreId: expect.any(String),
        jobId: expect.any(String),
        coreStatus: 'processing',
      });
      const early = await s.A().get(`/api/v1/org/cores/${res.body.coreId}`);
      expect(early.status).toBe(200);
      expect(early.body.status).toBe(200);
      const core = await waitForCore(s.t, s.org, res.body.coreId as string);
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
      const job = await s.A().get(`/api/v1/org/jobs/${res.body.jobId}`);
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
      const res = await s.A().post('/api/v1/org/cores', {
        name: 'Fetched',
        imageUrls: [
          `${s.fixture.origin}/red.png`,
          `${s.fixture.origin}/photo.jpg`,
          `${s.fixture.origin}/redirect-ok`,
        ],
        images: [s.red, s.red],
      });
      expect(res.status).toBe(202);
      const core = await waitForCore(s.t, s.org, res.body.coreId as string);
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
      const res = await s.A().post('/api/v1/org/cores', {
        name: 'Large',
        images: [await colourPng('#e9c46a', 2400)],
      });
      expect(res.status).toBe(202);
      const core = await waitForCore(s.t, s.org, res.body.coreId as string);
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
          images: [s.red, s.red, s.red],
          imageUrls: Array(3).fill('https://localhost/a.png'),
        }),
        /1 to 5 images.*got 6/,
      ],
      [
        '6 data URLs',
        async () => ({ name: 'x', images: Array(6).fill(s.red) }),
        /images must contain no more than 5/,
      ],
      ['a missing name', async () => ({ images: [s.red] }), /name/],
      [
        'a 256-character name',
        async () => ({ name: 'n'.repeat(256), images: [s.red] }),
        /name must be shorter than or equal to 255/,
      ],
      [
        'an unknown field',
        async () => ({ name: 'x', images: [s.red], colour: 'red' }),
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
      const res = await s.A().post('/api/v1/org/cores', await body());
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
      const before = filesUnder(s.t.config.storage.dir).length;
      const list = await s.A().get('/api/v1/org/cores?limit=1');
      const res = await s.A().post('/api/v1/org/cores', {
        name: 'x',
        images: [s.red],
        imageUrls: [`${s.fixture.origin}${path}`],
      });
      expect(res.status).toBe(400);
      expect(res.body.message).toMatch(message);
      expect(res.body).toMatchObject({ code: 'bad_request', reason: 'image_rejected' });
      expect(filesUnder(s.t.config.storage.dir).length).toBe(before);
      expect((await s.A().get('/api/v1/org/cores?limit=1')).body.total).toBe(list.body.total);
    });

    it('400 when the last of 5 images fails after the other 4 were stored: all 4 objects are removed', async () => {
      const before = filesUnder(s.t.config.storage.dir).length;
      const list = await s.A().get('/api/v1/org/cores?limit=1');
      const hitsBefore = s.fixture.hits.length;
      const res = await s.A().post('/api/v1/org/cores', {
        name: 'x',
        imageUrls: [`${s.fixture.origin}/photo.jpg`, `${s.fixture.origin}/delay/500/status/404`],
        images: [s.red, await colourPng('#2a9d8f', 2400), s.red],
      });
      expect(res.status).toBe(400);
      expect(res.body.message).toBe(
        `image 2 (${s.fixture.origin}/delay/500/status/404): the server answered HTTP 404`,
      );
      expect(res.body).toMatchObject({ code: 'bad_request', reason: 'image_fetch_failed' });
      expect(s.fixture.hits.length).toBe(hitsBefore + 2); // both URLs were fetched, at once
      expect(filesUnder(s.t.config.storage.dir).length).toBe(before);
      expect((await s.A().get('/api/v1/org/cores?limit=1')).body.total).toBe(list.body.total);
    });

    it('rejects literal loopback forms without any request reaching the server', async () => {
      const port = s.fixture.port;
      const forms = [
        `https://127.0.0.1:${port}/red.png`,
        `https://127.1:${port}/red.png`,
        `https://2130706433:${port}/red.png`,
        `https://[::1]:${port}/red.png`,
        `https://[::ffff:127.0.0.1]:${port}/red.png`,
      ];
      const hitsBefore = s.fixture.hits.length;
      for (const url of forms) {
        const res = await s.A().post('/api/v1/org/cores', { name: 'x', imageUrls: [url] });
        expect(res.status).toBe(400);
        expect(res.body.message).toMatch(/^image 1 /);
        expect(res.body.reason).toBe('image_rejected');
      }
      expect(s.fixture.hits.length).toBe(hitsBefore);
    });

    it('checks every URL before fetching any: a bad last URL costs no fetch of the first', async () => {
      const hitsBefore = s.fixture.hits.length;
      const res = await s.A().post('/api/v1/org/cores', {
        name: 'x',
        imageUrls: [`${s.fixture.origin}/red.png`, 'http://localhost/red.png'],
      });
      expect(res.status).toBe(400);
      expect(res.body.message).toMatch(/^image 2 /);
      expect(res.body.reason).toBe('image_rejected');
      expect(s.fixture.hits.length).toBe(hitsBefore);
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
