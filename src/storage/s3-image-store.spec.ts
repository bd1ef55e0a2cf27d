import { Client } from 'minio';
import { startS3Server, type S3TestServer } from '../../test/support/s3-server';
import { newImageKey } from './image-store';
import { S3ImageStore } from './s3-image-store';

const PNG = Buffer.from(
  'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8DwHwAFBQIAX8jx0gAAAABJRU5ErkJggg==',
  'base64',
);

async function readAll(stream: NodeJS.ReadableStream): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of stream) chunks.push(Buffer.isBuffer(chunk) ? chunk : Buffer.from(chunk));
  return Buffer.concat(chunks);
}

describe('S3ImageStore (against s3rver on loopback)', () => {
  let s3: S3TestServer;
  let store: S3ImageStore;
  let client: Client;

  beforeAll(async () => {
    s3 = await startS3Server();
    store = new S3ImageStore({
      endpoint: s3.endpoint,
      bucket: s3.bucket,
      accessKey: s3.accessKey,
      secretKey: s3.secretKey,
      region: 'us-east-1',
      publicUrl: '',
    });
    const { hostname, port } = new URL(s3.endpoint);
    client = new Client({
      endPoint: hostname,
      port: Number(port),
      useSSL: false,
      accessKey: s3.accessKey,
      secretKey: s3.secretKey,
      region: 'us-east-1',
      pathStyle: true,
    });
  });
  afterAll(() => s3.close());

  it('creates the missing bucket on first use (readiness check)', async () => {
    expect(await client.bucketExists(s3.bucket)).toBe(false);
    await store.ping();
    expect(await client.bucketExists(s3.bucket)).toBe(true);
  });

  it('put → exists → content round trip → delete → !exists', async () => {
    const key = newImageKey('png');
    expect(await store.exists(key)).toBe(false);
    await store.put(key, PNG, 'image/png');
    expect(await store.exists(key)).toBe(true);

    expect(await readAll(await client.getObject(s3.bucket, key))).toEqual(PNG);
    const stat = await client.statObject(s3.bucket, key);
    expect(stat.metaData['content-type']).toBe('image/png');
    // Served with a cache lifetime short enough that a deleted image disappears within 5 minutes.
    expect(stat.metaData['cache-control']).toBe('public, max-age=300');

    await store.delete(key);
    expect(await store.exists(key)).toBe(false);
    await expect(store.delete(key)).resolves.toBeUndefined(); // idempotent
  });

  it('builds public URLs from the endpoint and bucket, or from S3_PUBLIC_URL', () => {
    const key = newImageKey('jpg');
    expect(store.publicUrl(key)).toBe(`${s3.endpoint}/${s3.bucket}/${key}`);
    const cdn = new S3ImageStore({
      endpoint: s3.endpoint,
      bucket: s3.bucket,
      accessKey: s3.accessKey,
      secretKey: s3.secretKey,
      region: 'us-east-1',
      publicUrl: 'https://cdn.example.com/images/',
    });
    expect(cdn.publicUrl(key)).toBe(`https://cdn.example.com/images/${key}`);
  });

  it('refuses invalid keys', async () => {
    await expect(store.put('../x.png', PNG, 'image/png')).rejects.toThrow(/invalid image key/);
  });

  it('fails the readiness check when the server is unreachable', async () => {
    const dead = new S3ImageStore({
      endpoint: 'http://127.0.0.1:1',
      bucket: 'nope',
      accessKey: 'x',
      secretKey: 'y',
      region: 'us-east-1',
      publicUrl: '',
    });
    await expect(dead.ping()).rejects.toThrow();
  });
});
