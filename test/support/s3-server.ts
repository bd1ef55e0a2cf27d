import { mkdtemp, rm } from 'node:fs/promises';
import { createRequire } from 'node:module';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/** The part of s3rver's API used here (the package ships no type declarations). */
interface S3rverInstance {
  run(): Promise<AddressInfo>;
  close(): Promise<void>;
}
type S3rverConstructor = new (options: {
  address: string;
  port: number;
  silent: boolean;
  directory: string;
  resetOnClose: boolean;
  vhostBuckets: boolean;
  configureBuckets: Array<{ name: string }>;
}) => S3rverInstance;

const S3rver = createRequire(__filename)('s3rver') as S3rverConstructor;

export interface S3TestServer {
  /** e.g. `http://127.0.0.1:PORT` */
  endpoint: string;
  /** A fresh bucket name. It does NOT exist yet: the S3 driver is expected to create it. */
  bucket: string;
  accessKey: string;
  secretKey: string;
  close(): Promise<void>;
}

/**
 * Starts a real S3-protocol server (s3rver) on loopback, on an ephemeral port, storing objects in a
 * fresh temporary directory that is removed on close. s3rver accepts the fixed key pair S3RVER/S3RVER.
 */
export async function startS3Server(): Promise<S3TestServer> {
  const directory = await mkdtemp(join(tmpdir(), 'taste-s3rver-'));
  const server = new S3rver({
    address: '127.0.0.1',
    port: 0,
    silent: true,
    directory,
    resetOnClose: true,
    vhostBuckets: false,
    configureBuckets: [],
  });
  const { port } = await server.run();
  return {
    endpoint: `http://127.0.0.1:${port}`,
    bucket: `taste-test-${Date.now().toString(36)}-${Math.random().toString(36).slice(2, 8)}`,
    accessKey: 'S3RVER',
    secretKey: 'S3RVER',
    close: async () => {
      await server.close();
      await rm(directory, { recursive: true, force: true });
    },
  };
}
