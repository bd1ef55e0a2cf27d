import { Logger } from '@nestjs/common';
import { Client } from 'minio';
import type { S3Config } from '../config/configuration';
import { assertValidKey, IMAGE_CACHE_CONTROL, ImageStore, isValidImageKey } from './image-store';

export type S3ImageStoreOptions = S3Config;

const NOT_FOUND_CODES = new Set(['NotFound', 'NoSuchKey', 'NoSuchObject']);

/**
 * Images in an S3-compatible bucket (MinIO, AWS S3, ...) through the `minio` client, path-style.
 * The bucket is created on first use if missing (with a read-only policy for objects, where the
 * server supports bucket policies); the public URL is `${publicUrl}/${key}`.
 */
export class S3ImageStore extends ImageStore {
  private readonly logger = new Logger(S3ImageStore.name);
  private readonly client: Client;
  private readonly bucket: string;
  private readonly region: string;
  private readonly baseUrl: string;
  private bucketReady: Promise<void> | null = null;

  constructor(options: S3ImageStoreOptions) {
    super();
    const endpoint = new URL(options.endpoint);
    const useSSL = endpoint.protocol === 'https:';
    this.client = new Client({
      endPoint: endpoint.hostname.replace(/^\[(.*)\]$/, '$1'),
      port: endpoint.port ? Number(endpoint.port) : useSSL ? 443 : 80,
      useSSL,
      accessKey: options.accessKey,
      secretKey: options.secretKey,
      region: options.region || 'us-east-1',
      pathStyle: true,
    });
    this.bucket = options.bucket;
    this.region = options.region || 'us-east-1';
    const endpointBase = options.endpoint.replace(/\/+$/, '');
    this.baseUrl = options.publicUrl
      ? options.publicUrl.replace(/\/+$/, '')
      : `${endpointBase}/${options.bucket}`;
  }

  async put(key: string, data: Buffer, contentType: string): Promise<void> {
    assertValidKey(key);
    await this.ensureBucket();
    await this.client.putObject(this.bucket, key, data, data.length, {
      'Content-Type': contentType,
      'Cache-Control': IMAGE_CACHE_CONTROL,
    });
  }

  async delete(key: string): Promise<void> {
    assertValidKey(key);
    await this.ensureBucket();
    try {
      await this.client.removeObject(this.bucket, key);
    } catch (err) {
      if (!isNotFound(err)) throw err;
    }
  }

  async exists(key: string): Promise<boolean> {
    assertValidKey(key);
    await this.ensureBucket();
    try {
      await this.client.statObject(this.bucket, key);
      return true;
    } catch (err) {
      if (isNotFound(err)) return false;
      throw err;
    }
  }

  async read(key: string): Promise<Buffer> {
    assertValidKey(key);
    await this.ensureBucket();
    const stream = await this.client.getObject(this.bucket, key);
    const chunks: Buffer[] = [];
    for await (const chunk of stream)
      chunks.push(Buffer.isBuffer(chunk) ? chunk : Buffer.from(chunk as Uint8Array));
    return Buffer.concat(chunks);
  }

  publicUrl(key: string): string {
    assertValidKey(key);
    return `${this.baseUrl}/${key}`;
  }

  async ping(): Promise<void> {
    await this.ensureBucket();
    if (!(await this.client.bucketExists(this.bucket)))
      throw new Error(`bucket ${this.bucket} does not exist`);
  }

  async *listKeys(prefix: string, before: Date): AsyncIterable<string> {
    await this.ensureBucket();
    const stream = this.client.listObjectsV2(this.bucket, prefix, true);
    for await (const item of stream as AsyncIterable<{ name?: string; lastModified?: Date }>) {
      if (item.name && item.lastModified && item.lastModified < before && isValidImageKey(item.name)) {
        yield item.name;
      }
    }
  }

  /** Creates the bucket once if missing; a failed attempt is retried on the next call. */
  private ensureBucket(): Promise<void> {
    if (!this.bucketReady) {
      this.bucketReady = this.createBucketIfMissing().catch((err: unknown) => {
        this.bucketReady = null;
        throw err;
      });
    }
    return this.bucketReady;
  }

  private async createBucketIfMissing(): Promise<void> {
    if (await this.client.bucketExists(this.bucket)) return;
    try {
      await this.client.makeBucket(this.bucket, this.region);
    } catch (err) {
      const code = errorCode(err);
      if (code !== 'BucketAlreadyOwnedByYou' && code !== 'BucketAlreadyExists') throw err;
      return;
    }
    await this.allowPublicRead();
  }

  /** Anonymous GetObject only (no listing: keys stay unguessable). Best effort: not every server supports it. */
  private async allowPublicRead(): Promise<void> {
    const policy = {
      Version: '2012-10-17',
      Statement: [
        {
          Effect: 'Allow',
          Principal: { AWS: ['*'] },
          Action: ['s3:GetObject'],
          Resource: [`arn:aws:s3:::${this.bucket}/*`],
        },
      ],
    };
    try {
      await this.client.setBucketPolicy(this.bucket, JSON.stringify(policy));
    } catch (err) {
      this.logger.warn(
        `could not set a public-read policy on bucket ${this.bucket} (${errorCode(err) ?? 'error'}); ` +
          'make its objects publicly readable another way',
      );
    }
  }
}

function errorCode(err: unknown): string | undefined {
  if (typeof err === 'object' && err !== null && 'code' in err && typeof err.code === 'string')
    return err.code;
  return undefined;
}

function isNotFound(err: unknown): boolean {
  const code = errorCode(err);
  return code !== undefined && NOT_FOUND_CODES.has(code);
}
