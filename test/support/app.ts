import { mkdtempSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { NestExpressApplication } from '@nestjs/platform-express';
import { ApiKeysService } from '../../src/auth/api-keys.service';
import { OrganizationsService } from '../../src/organizations/organizations.service';
import { createApp } from '../../src/bootstrap';
import { AllConfig, buildConfig, validateEnv } from '../../src/config/configuration';

export interface TestApp {
  app: NestExpressApplication;
  config: AllConfig;
  /** `http://127.0.0.1:<port>` of the listening server. */
  baseUrl: string;
  close(): Promise<void>;
}

/** Boots the real application (real Postgres and Redis) on a random loopback port. */
export async function startTestApp(env: Record<string, string> = {}): Promise<TestApp> {
  const storageDir = mkdtempSync(join(tmpdir(), 'taste-storage-'));
  const port = await freePort();
  const baseUrl = `http://127.0.0.1:${port}`;
  const config = buildConfig(
    validateEnv({
      ...process.env,
      STORAGE_DIR: storageDir,
      PORT: String(port),
      PUBLIC_BASE_URL: baseUrl,
      LOG_LEVEL: 'silent',
      // Each app gets its own queue unless a test shares one on purpose (its worker reads its storage).
      QUEUE_PREFIX: `test-${process.pid}-${port}`,
      ...env,
    }),
  );
  const app = await createApp(config);
  await app.listen(port, '127.0.0.1');
  return { app, config, baseUrl, close: () => app.close() };
}

export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = createServer();
    srv.unref();
    srv.on('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const { port } = srv.address() as { port: number };
      srv.close(() => resolve(port));
    });
  });
}

export interface OrgWithKey {
  orgId: string;
  orgName: string;
  keyId: string;
  key: string;
}

let counter = 0;

/** Factory: a new organization and API key through the real services. */
export async function createOrgWithKey(app: NestExpressApplication, name?: string): Promise<OrgWithKey> {
  const keys = app.get(ApiKeysService);
  counter += 1;
  const org = await app
    .get(OrganizationsService)
    .create(name ?? `Test Org ${process.pid}-${counter}-${Date.now()}`);
  const ctx = await keys.cliContext(org.id);
  const key = await keys.createKey(ctx, 'test');
  return { orgId: org.id, orgName: org.name, keyId: key.id, key: key.key };
}

export async function createKeyForOrg(
  app: NestExpressApplication,
  orgId: string,
  name = 'second',
): Promise<{ id: string; key: string }> {
  const keys = app.get(ApiKeysService);
  const key = await keys.createKey(await keys.cliContext(orgId), name);
  return { id: key.id, key: key.key };
}
