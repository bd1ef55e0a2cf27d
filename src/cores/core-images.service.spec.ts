import { ConfigService } from '@nestjs/config';
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import sharp from 'sharp';
import { fixtureImages, startHttpsFixture, type HttpsFixture } from '../../test/support/https-fixture';
import type { AllConfig } from '../config/configuration';
import { ImageIngestionService, type ImageSource } from '../storage';
import { FsImageStore } from '../storage/fs-image-store';
import { CoreImagesService } from './core-images.service';
import { ImageErrorCode, ImageIngestionException } from '../storage/storage.exception';

/** Every file under `dir`, relative. */
function files(dir: string): string[] {
  return readdirSync(dir, { recursive: true, withFileTypes: true })
    .filter((e) => e.isFile())
    .map((e) => join(e.parentPath, e.name).slice(dir.length + 1));
}

/** The fs store, counting the writes that completed. */
class CountingStore extends FsImageStore {
  written = 0;
  override async put(key: string, data: Buffer, contentType: string): Promise<void> {
    await super.put(key, data, contentType);
    this.written += 1;
  }
}

describe('CoreImagesService.ingestAndStore', () => {
  let fixture: HttpsFixture;
  let ingestion: ImageIngestionService;
  let dir: string;
  let store: CountingStore;
  let service: CoreImagesService;
  let good: ImageSource[];

  beforeAll(async () => {
    fixture = await startHttpsFixture();
    const values = { ingest: { allowedHosts: ['localhost'], timeoutMs: 5000 } };
    ingestion = new ImageIngestionService({
      get: (key: 'ingest') => values[key],
    } as unknown as ConfigService<AllConfig, true>);
    const { redPng, photoJpg } = await fixtureImages();
    const large = await sharp({ create: { width: 3000, height: 2000, channels: 3, background: '#2a9d8f' } })
      .jpeg()
      .toBuffer();
    good = [redPng, photoJpg, large, redPng].map((b): ImageSource => ({
      kind: 'data',
      dataUrl: `data:image/png;base64,${b.toString('base64')}`,
    }));
  });
  afterAll(async () => {
    await ingestion.onModuleDestroy();
    await fixture.close();
  });
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'core-images-'));
    store = new CountingStore(dir, 'http://localhost');
    service = new CoreImagesService(ingestion, store);
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it('stores every image in order, each object with its content type', async () => {
    const stored = await service.ingestAndStore(good);
    expect(stored.map((s) => s.position)).toEqual([0, 1, 2, 3]);
    expect(stored.map((s) => s.contentType)).toEqual(['image/png', 'image/jpeg', 'image/jpeg', 'image/png']);
    expect(stored[2]).toMatchObject({ width: 1600, height: 1067 });
    expect(new Set(stored.map((s) => s.storageKey)).size).toBe(4);
    expect(files(dir).sort()).toEqual(
      stored.flatMap((s) => [s.storageKey, `${s.storageKey}.meta.json`]).sort(),
    );
    for (const s of stored) expect(s.url).toBe(`http://localhost/images/${s.storageKey}`);
  });

  it('a fifth image failing after the others were written leaves no object behind', async () => {
    const late: ImageSource = { kind: 'url', url: `${fixture.origin}/delay/400/status/404` };
    await expect(service.ingestAndStore([...good, late])).rejects.toThrow(
      new ImageIngestionException(
        ImageErrorCode.FetchFailed,
        `image 5 (${fixture.origin}/delay/400/status/404): the server answered HTTP 404`,
      ),
    );
    expect(store.written).toBe(4); // the four good ones really were stored before the failure
    expect(files(dir)).toEqual([]);
  });

  it('an image failing first: the writes still running when it fails are removed once they land', async () => {
    const bad: ImageSource = { kind: 'data', dataUrl: 'data:image/png;base64,bm90IGFuIGltYWdl' };
    await expect(service.ingestAndStore([bad, ...good])).rejects.toThrow(/^image 1 .*not a decodable image/);
    expect(files(dir)).toEqual([]);
  });

  it('a failed write removes the objects of the other images too', async () => {
    const failing = new (class extends CountingStore {
      override async put(key: string, data: Buffer, contentType: string): Promise<void> {
        if (contentType === 'image/jpeg') throw new Error('disk full');
        await super.put(key, data, contentType);
      }
    })(dir, 'http://localhost');
    await expect(new CoreImagesService(ingestion, failing).ingestAndStore(good)).rejects.toThrow('disk full');
    expect(files(dir)).toEqual([]);
  });
});
