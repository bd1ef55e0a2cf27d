import { Queue } from 'bullmq';
import { GENERATION_PRODUCER } from '../../src/jobs/job.types';
import { api } from '../support/api';
import { createOrgWithKey, startTestApp, TestApp } from '../support/app';
import { colourPng } from '../support/cores';

/** When the queue refuses a job, nothing may stay `processing` forever. */
describe('enqueue failure (e2e)', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp();
  });
  afterAll(() => t.close());

  it('marks the job and the core failed with an actionable error and answers 503', async () => {
    const org = await createOrgWithKey(t.app);
    const queue = t.app.get<Queue>(GENERATION_PRODUCER, { strict: false });
    const add = queue.add.bind(queue);
    queue.add = () => Promise.reject(new Error('Redis is unreachable'));
    try {
      // Through the contract check: 503 is a documented response of POST /cores.
      const res = await api(t, org.key).post('/api/v1/org/cores', {
        name: 'Unqueued',
        images: [await colourPng('#c19a6b')],
      });
      expect(res.status).toBe(503);
      expect(res.body).toEqual(
        expect.objectContaining({
          status: 503,
          code: 'unavailable',
          reason: 'enqueue_failed',
          message: expect.stringMatching(/could not be queued/),
        }),
      );
    } finally {
      queue.add = add;
    }
    const list = await api(t, org.key).get('/api/v1/org/cores');
    const core = (list.body.cores as { id: string; coreStatus: string; error: string | null }[])[0];
    expect(core.coreStatus).toBe('failed');
    expect(core.error).toMatch(/replace the images to try again/);
    // A failed core has no profile to search: 409 with the same advice to poll, as for processing.
    const search = await api(t, org.key).post(`/api/v1/org/cores/${core.id}/products`, {});
    expect(search.status).toBe(409);
    expect(search.body.message).toMatch(/coreStatus is failed/);
    const { jobs } = await t.app
      .get((await import('../../src/cores/cores.service')).CoresService)
      .getWithJobs(
        {
          orgId: org.orgId,
          orgName: org.orgName,
          actor: { type: 'cli', id: null, label: 't' },
          apiKeyId: null,
        },
        core.id,
      );
    expect(jobs).toEqual([expect.objectContaining({ jobStatus: 'failed', error: core.error })]);
  });
});
