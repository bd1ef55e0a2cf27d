import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { INestApplicationContext } from '@nestjs/common';
import { startWorker } from '../../src/bootstrap';
import { buildConfig, validateEnv } from '../../src/config/configuration';
import { api } from '../support/api';
import { createOrgWithKey, startTestApp, TestApp } from '../support/app';
import { colourPng, waitForCore } from '../support/cores';

/** Scale-out: an API-only process enqueues; a separate worker process generates. */
describe('ROLE=api and ROLE=worker (e2e)', () => {
  const shared = {
    QUEUE_PREFIX: `roles-${process.pid}`,
    STORAGE_DIR: mkdtempSync(join(tmpdir(), 'roles-storage-')),
  };
  let apiApp: TestApp;
  let worker: INestApplicationContext | undefined;

  beforeAll(async () => {
    apiApp = await startTestApp({ ...shared, ROLE: 'api' });
  });
  afterAll(async () => {
    await worker?.close();
    await apiApp.close();
  });

  it('an API-only process leaves generation to a worker process', async () => {
    const org = await createOrgWithKey(apiApp.app);
    const res = await api(apiApp, org.key).post('/api/v1/org/cores', {
      name: 'Split roles',
      images: [await colourPng('#1c2541')],
    });
    expect(res.status).toBe(202);
    await new Promise((r) => setTimeout(r, 1000));
    // Nobody processes the queue yet: processing, and no taste until the profile is ready.
    const waiting = await api(apiApp, org.key).get(`/api/v1/org/cores/${res.body.coreId}`);
    expect(waiting.body).toEqual(expect.objectContaining({ coreStatus: 'processing', taste: null }));

    const config = buildConfig(
      validateEnv({ ...process.env, ...shared, ROLE: 'worker', LOG_LEVEL: 'silent' }),
    );
    // What `ROLE=worker node dist/main.js` starts: the modules without an HTTP listener.
    worker = await startWorker(config);
    const core = await waitForCore(apiApp, org, res.body.coreId as string);
    expect(core.coreStatus).toBe('ready');
  });
});
