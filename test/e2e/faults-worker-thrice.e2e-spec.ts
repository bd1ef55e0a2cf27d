import { killWorkersDuringOneJob } from '../support/worker-kills';

/**
 * A third stall of the same job is one too many (`maxStalledCount` 2): BullMQ fails it, and the
 * worker's `failed` handler marks the job and its core failed (docs/decisions/0019).
 */
describe('a worker killed three times for one job (e2e, spawned workers)', () => {
  it('the job stalled too often, and the failed handler marks job and core failed', async () => {
    const outcome = await killWorkersDuringOneJob('fault-worker-thrice', 3);
    expect(outcome.processingAfterKills).toEqual([true, true, true]);
    expect(outcome.job).toEqual({ status: 'failed', core: 'failed', attempts: 3 });
    expect(outcome.core).toEqual(
      expect.objectContaining({ coreStatus: 'failed', error: expect.stringMatching(/replace the images/) }),
    );
  }, 280_000);
});
