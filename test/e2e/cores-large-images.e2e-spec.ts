import { randomBytes } from 'node:crypto';
import request from 'supertest';
import sharp from 'sharp';
import { LONG_STRING_BYTES } from '../../src/common/json-bytes';
import { verifyAndNormalizeImage } from '../../src/storage/image-verifier';
import { waitForCore } from '../support/cores';
import { useCoresSuite } from '../support/cores-suite';

/**
 * Data URLs long enough for the image routes' parser to read them from the body's bytes rather than
 * through JSON.parse (docs/decisions/0043): what is stored, refused, fingerprinted for an
 * Idempotency-Key and validated must be what JSON.parse of the body would give.
 */
describe('cores: large base64 images (e2e)', () => {
  const s = useCoresSuite();
  /** A noisy JPEG (incompressible, like a photograph): well over LONG_STRING_BYTES as base64. */
  async function noisyJpeg(width: number): Promise<Buffer> {
    const height = 300;
    return sharp(randomBytes(width * height * 3), { raw: { width, height, channels: 3 } })
      .jpeg({ quality: 95 })
      .toBuffer();
  }
  const dataUrl = (jpeg: Buffer) => `data:image/jpeg;base64,${jpeg.toString('base64')}`;
  const post = (body: object, key?: string) => {
    let req = request(s.t.app.getHttpServer())
      .post('/api/v1/org/cores')
      .set('Authorization', `Bearer ${s.org.key}`);
    if (key) req = req.set('Idempotency-Key', key);
    return req.send(body);
  };
  /** The bytes behind a ready core's images. */
  async function storedImages(coreId: string): Promise<Buffer[]> {
    const core = await waitForCore(s.t, s.org, coreId);
    expect(core.coreStatus).toBe('ready');
    const images = core.images as { imageURL: string }[];
    return Promise.all(images.map(async (i) => (await request(i.imageURL).get('')).body as Buffer));
  }

  it('stores exactly the rendition of the uploaded bytes, on create and on an image-replacing PATCH', async () => {
    const [a, b, c] = await Promise.all([noisyJpeg(400), noisyJpeg(420), noisyJpeg(440)]);
    expect(dataUrl(a).length).toBeGreaterThan(LONG_STRING_BYTES);
    const created = await post({ name: 'Large', images: [dataUrl(a), dataUrl(b)] });
    expect(created.status).toBe(202);
    const coreId = created.body.coreId as string;
    const expected = await Promise.all([a, b].map(async (j) => (await verifyAndNormalizeImage(j)).data));
    expect(await storedImages(coreId)).toEqual(expected);

    const patched = await request(s.t.app.getHttpServer())
      .patch(`/api/v1/org/cores/${coreId}`)
      .set('Authorization', `Bearer ${s.org.key}`)
      .send({ images: [dataUrl(c)] });
    expect(patched.status).toBe(200);
    expect(await storedImages(coreId)).toEqual([(await verifyAndNormalizeImage(c)).data]);
  });

  it('replays the same body under one Idempotency-Key and answers 422 for another image under it', async () => {
    const [a, b] = await Promise.all([noisyJpeg(460), noisyJpeg(480)]);
    const key = `large-${Date.now()}`;
    const first = await post({ name: 'Once', images: [dataUrl(a)] }, key);
    expect(first.status).toBe(202);
    const again = await post({ name: 'Once', images: [dataUrl(a)] }, key);
    expect(again.status).toBe(202);
    expect(again.headers['idempotent-replayed']).toBe('true');
    expect(again.body).toEqual(first.body);
    const other = await post({ name: 'Once', images: [dataUrl(b)] }, key);
    expect(other.status).toBe(422);
  });

  it('refuses a long data URL that is not valid base64 with the same message as a short one', async () => {
    const jpeg = await noisyJpeg(400);
    const urlSafe = dataUrl(jpeg).replace(/\+/g, '-');
    const long = await post({ name: 'Bad', images: [urlSafe] });
    const short = await post({ name: 'Bad', images: ['data:image/jpeg;base64,AA-A'] });
    expect([long.status, short.status]).toEqual([400, 400]);
    expect(long.body.message).toBe('image 1 (data:image/jpeg;base64,...): data URL is not valid base64');
    expect(short.body.message).toBe(long.body.message);
  });

  it('validates a long data URL outside images as the string it is', async () => {
    const jpeg = await noisyJpeg(400);
    const res = await post({ name: dataUrl(jpeg), images: [s.red] });
    expect(res.status).toBe(400);
    expect(res.body.message).toMatch(/name must be shorter than or equal to 255/);
  });
});
