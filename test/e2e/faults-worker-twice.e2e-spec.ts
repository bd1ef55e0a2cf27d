import { killWorkersDuringOneJob } from '../support/worker-kills';

/**
 * Workers SIGKILLed in the middle of a generation (spawned `src/worker.ts` processes): BullMQ's stalled
 * check hands the job to the next worker within about 30 s, and two stalls are retried
 * (docs/decisions/0019).
 */
describe('a worker killed twice for one job (e2e, spawned workers)', () => {
  it('the third worker finishes the job and the core is ready', async () => {
    const outcome = await killWorkersDuringOneJob('fault-worker-twice', 2);
    expect(outcome.processingAfterKills).toEqual([true, true]);
    expect(outcome.job).toEqual({ status: 'ready', core: 'ready', attempts: 3 });
    expect(outcome.core).toEqual(expect.objectContaining({ coreStatus: 'ready', taste: expect.any(String) }));
  }, 280_000);
});
