import { randomBytes } from 'node:crypto';
import { constants } from 'node:fs';
import { access, mkdir, open, readdir, readFile, rename, rm, stat } from 'node:fs/promises';
import { dirname, join, relative, sep } from 'node:path';
import { assertValidKey, ImageStore, isValidImageKey, StoredImageStream } from './image-store';

interface ImageMeta {
  contentType: string;
}

const CONTENT_TYPE_BY_EXT: Record<string, string> = {
  jpg: 'image/jpeg',
  jpeg: 'image/jpeg',
  png: 'image/png',
  webp: 'image/webp',
  gif: 'image/gif',
  avif: 'image/avif',
};

/**
 * Images as files under `dir`: `<dir>/<key>` holds the bytes, `<dir>/<key>.meta.json` the content type.
 * Both are written to a temporary file and renamed into place, so a reader never sees half an image.
 * Served by this service at `${publicBaseUrl}/images/<key>`.
 */
export class FsImageStore extends ImageStore {
  constructor(
    private readonly dir: string,
    private readonly publicBaseUrl: string,
  ) {
    super();
  }

  async put(key: string, data: Buffer, contentType: string): Promise<void> {
    const path = this.pathOf(key);
    await mkdir(dirname(path), { recursive: true });
    const meta: ImageMeta = { contentType };
    // Both files at once; a failure leaves at most one of them, which delete() and the sweeper remove.
    const written = await Promise.allSettled([
      this.writeAtomic(`${path}${META_SUFFIX}`, JSON.stringify(meta)),
      this.writeAtomic(path, data),
    ]);
    for (const w of written) if (w.status === 'rejected') throw w.reason;
  }

  async delete(key: string): Promise<void> {
    const path = this.pathOf(key);
    await rm(path, { force: true });
    await rm(`${path}.meta.json`, { force: true });
  }

  async exists(key: string): Promise<boolean> {
    try {
      return (await stat(this.pathOf(key))).isFile();
    } catch (err) {
      if (isNotFound(err)) return false;
      throw err;
    }
  }

  async read(key: string): Promise<Buffer> {
    assertValidKey(key);
    return readFile(this.pathOf(key));
  }

  publicUrl(key: string): string {
    assertValidKey(key);
    return `${this.publicBaseUrl}/images/${key}`;
  }

  async ping(): Promise<void> {
    await mkdir(this.dir, { recursive: true });
    await access(this.dir, constants.R_OK | constants.W_OK);
  }

  override async *listKeys(prefix: string, before: Date): AsyncIterable<string> {
    for await (const { rel, mtime } of this.walk(join(this.dir, prefix))) {
      if (rel.endsWith('.tmp') || mtime >= before) continue;
      // An image and its `.meta.json` are written side by side: either one alone is an orphan too.
      const key = rel.endsWith(META_SUFFIX) ? rel.slice(0, -META_SUFFIX.length) : rel;
      if (isValidImageKey(key)) yield key;
    }
  }

  override async removeStaleTemporaries(before: Date): Promise<number> {
    let removed = 0;
    for await (const { path, rel, mtime } of this.walk(this.dir)) {
      if (rel.endsWith('.tmp') && mtime < before) {
        await rm(path, { force: true });
        removed += 1;
      }
    }
    return removed;
  }

  /** Every file under `dir` with its key-like path relative to the store's root. */
  private async *walk(dir: string): AsyncGenerator<{ path: string; rel: string; mtime: Date }> {
    let entries;
    try {
      entries = await readdir(dir, { withFileTypes: true });
    } catch (err) {
      if (isNotFound(err)) return;
      throw err;
    }
    for (const entry of entries) {
      const path = join(dir, entry.name);
      if (entry.isDirectory()) {
        yield* this.walk(path);
      } else if (entry.isFile()) {
        const info = await stat(path).catch(() => null);
        if (info) yield { path, rel: relative(this.dir, path).split(sep).join('/'), mtime: info.mtime };
      }
    }
  }

  override async open(key: string): Promise<StoredImageStream | null> {
    if (!isValidImageKey(key)) return null;
    const path = this.pathOf(key);
    let handle;
    try {
      handle = await open(path, 'r');
    } catch (err) {
      if (isNotFound(err)) return null;
      throw err;
    }
    try {
      const info = await handle.stat();
      const contentType = await this.contentTypeOf(key, path);
      return { stream: handle.createReadStream(), contentType, size: info.size };
    } catch (err) {
      await handle.close();
      throw err;
    }
  }

  private async contentTypeOf(key: string, path: string): Promise<string> {
    try {
      const meta = JSON.parse(await readFile(`${path}.meta.json`, 'utf8')) as Partial<ImageMeta>;
      if (typeof meta.contentType === 'string' && meta.contentType !== '') return meta.contentType;
    } catch (err) {
      if (!isNotFound(err) && !(err instanceof SyntaxError)) throw err;
    }
    const ext = key.slice(key.lastIndexOf('.') + 1);
    return CONTENT_TYPE_BY_EXT[ext] ?? 'application/octet-stream';
  }

  private pathOf(key: string): string {
    assertValidKey(key);
    return join(this.dir, key);
  }

  private async writeAtomic(path: string, data: Buffer | string): Promise<void> {
    const tmp = `${path}.${randomBytes(6).toString('hex')}.tmp`;
    try {
      const handle = await open(tmp, 'wx');
      try {
        await handle.writeFile(data);
        await handle.sync();
      } finally {
        await handle.close();
      }
      await rename(tmp, path);
    } catch (err) {
      await rm(tmp, { force: true });
      throw err;
    }
  }
}

const META_SUFFIX = '.meta.json';

function isNotFound(err: unknown): boolean {
  return (
    typeof err === 'object' &&
    err !== null &&
    'code' in err &&
    (err.code === 'ENOENT' || err.code === 'ENOTDIR')
  );
}
