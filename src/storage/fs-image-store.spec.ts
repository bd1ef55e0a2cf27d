import type { INestApplication } from '@nestjs/common';
import { Test } from '@nestjs/testing';
import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import request from 'supertest';
import { AllExceptionsFilter } from '../common/http-exception.filter';
import { FsImageStore } from './fs-image-store';
import { ImageStore, isValidImageKey, newImageKey } from './image-store';
import { ImagesController } from './images.controller';

const PNG = Buffer.from(
  'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8DwHwAFBQIAX8jx0gAAAABJRU5ErkJggg==',
  'base64',
);

describe('newImageKey', () => {
  it('makes unguessable, valid keys (128 random bits, hex)', () => {
    const keys = new Set(Array.from({ length: 200 }, () => newImageKey('png')));
    expect(keys.size).toBe(200);
    for (const key of keys) {
      expect(key).toMatch(/^img\/[0-9a-f]{32}\.png$/);
      expect(isValidImageKey(key)).toBe(true);
    }
    expect(newImageKey('.JPG')).toMatch(/^img\/[0-9a-f]{32}\.jpg$/);
  });

  it('refuses odd extensions and prefixes', () => {
    expect(() => newImageKey('p/ng')).toThrow();
    expect(() => newImageKey('png', '../x')).toThrow();
  });

  it.each([
    '../etc/passwd',
    'img/../../x.png',
    'img/ABC.png',
    `img/${'a'.repeat(32)}.png/..`,
    '',
    'img//x.png',
  ])('treats %j as invalid', (key) => {
    expect(isValidImageKey(key)).toBe(false);
  });
});

describe('FsImageStore', () => {
  let dir: string;
  let store: FsImageStore;

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'taste-fs-store-'));
    store = new FsImageStore(dir, 'http://localhost:3000');
  });
  afterAll(() => rm(dir, { recursive: true, force: true }));

  it('puts, reports, serves and deletes an image', async () => {
    const key = newImageKey('png');
    expect(await store.exists(key)).toBe(false);
    await store.put(key, PNG, 'image/png');
    expect(await store.exists(key)).toBe(true);
    expect(await readFile(join(dir, key))).toEqual(PNG);
    expect(store.publicUrl(key)).toBe(`http://localhost:3000/images/${key}`);

    const opened = await store.open(key);
    expect(opened).toMatchObject({ contentType: 'image/png', size: PNG.length });
    opened?.stream.destroy();

    await store.delete(key);
    expect(await store.exists(key)).toBe(false);
    expect(await store.open(key)).toBeNull();
    await expect(store.delete(key)).resolves.toBeUndefined(); // idempotent
  });

  it('leaves no temporary files behind', async () => {
    const key = newImageKey('jpg');
    await store.put(key, PNG, 'image/jpeg');
    const files = await readdir(join(dir, 'img'));
    expect(files.filter((f) => f.endsWith('.tmp'))).toEqual([]);
  });

  it('refuses invalid keys', async () => {
    await expect(store.put('../escape.png', PNG, 'image/png')).rejects.toThrow(/invalid image key/);
    await expect(store.exists('img/../../x.png')).rejects.toThrow(/invalid image key/);
    expect(() => store.publicUrl('nope')).toThrow(/invalid image key/);
    expect(await store.open('../../package.json')).toBeNull();
  });

  it('passes the readiness check', async () => {
    await expect(store.ping()).resolves.toBeUndefined();
  });
});

describe('ImagesController (GET /images/*key)', () => {
  let dir: string;
  let store: FsImageStore;
  let app: INestApplication;

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'taste-fs-serve-'));
    store = new FsImageStore(dir, 'http://localhost:3000');
    const moduleRef = await Test.createTestingModule({
      controllers: [ImagesController],
      providers: [{ provide: ImageStore, useValue: store }],
    }).compile();
    app = moduleRef.createNestApplication({ logger: false });
    app.useGlobalFilters(new AllExceptionsFilter());
    await app.init();
  });
  afterAll(async () => {
    await app.close();
    await rm(dir, { recursive: true, force: true });
  });

  it('serves the stored bytes with the stored content type, nosniff and a 5-minute cache lifetime', async () => {
    const key = newImageKey('webp'); // extension and stored type differ on purpose: the stored type wins
    await store.put(key, PNG, 'image/png');
    const res = await request(app.getHttpServer()).get(`/images/${key}`).expect(200);
    expect(res.headers['content-type']).toBe('image/png');
    expect(res.headers['x-content-type-options']).toBe('nosniff');
    expect(res.headers['cache-control']).toBe('public, max-age=300');
    expect(res.headers['content-length']).toBe(String(PNG.length));
    expect(Buffer.from(res.body as Buffer)).toEqual(PNG);
  });

  it('answers 404 with the error body once the image is deleted', async () => {
    const key = newImageKey('png');
    await store.put(key, PNG, 'image/png');
    await request(app.getHttpServer()).get(`/images/${key}`).expect(200);
    await store.delete(key);
    const res = await request(app.getHttpServer()).get(`/images/${key}`).expect(404);
    expect(res.body).toMatchObject({ status: 404, message: expect.any(String) });
    expect(res.headers['cache-control'] ?? '').not.toMatch(/max-age|immutable/);
  });

  it('answers 404 for a key that never existed', async () => {
    const res = await request(app.getHttpServer())
      .get(`/images/${newImageKey('png')}`)
      .expect(404);
    expect(res.body).toMatchObject({ status: 404 });
  });

  it.each([
    '/images/..%2F..%2Fpackage.json',
    '/images/img%2F..%2F..%2F..%2Fetc%2Fpasswd',
    '/images/img/..%2F..%2Fpackage.json',
    '/images/%2e%2e/%2e%2e/package.json',
    '/images/img/0123456789abcdef0123456789abcdef.png%00.txt',
    '/images/',
  ])('refuses traversal and malformed keys: %s', async (path) => {
    const res = await request(app.getHttpServer()).get(path).expect(404);
    expect(res.body).toMatchObject({ status: 404 });
  });

  it('does not serve the metadata sidecar', async () => {
    const key = newImageKey('png');
    await store.put(key, PNG, 'image/png');
    await request(app.getHttpServer()).get(`/images/${key}.meta.json`).expect(404);
  });
});
