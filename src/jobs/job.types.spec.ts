import { armedFaults } from '../config/armed-faults';
import { GENERATION_LOCK_MS, GENERATION_STALLED_INTERVAL_MS, generationStallTimes } from './job.types';

describe('generationStallTimes', () => {
  const defaults = { lockDuration: GENERATION_LOCK_MS, stalledInterval: GENERATION_STALLED_INTERVAL_MS };
  const times = (env: { NODE_ENV?: string; FAULT_INJECTION?: string }) =>
    generationStallTimes(armedFaults(env));

  it('is the 20 s lock and 10 s stalled check unless a test arms fast-stall-detection', () => {
    expect(defaults).toEqual({ lockDuration: 20_000, stalledInterval: 10_000 });
    expect(times({})).toEqual(defaults);
    expect(times({ NODE_ENV: 'test', FAULT_INJECTION: 'slow-generation' })).toEqual(defaults);
  });

  it('is short when NODE_ENV=test arms it, among other points', () => {
    expect(times({ NODE_ENV: 'test', FAULT_INJECTION: 'slow-generation, fast-stall-detection' })).toEqual({
      lockDuration: 4_000,
      stalledInterval: 1_000,
    });
  });

  it('ignores the fault point in any other environment', () => {
    for (const NODE_ENV of ['production', 'development', undefined]) {
      expect(times({ NODE_ENV, FAULT_INJECTION: 'fast-stall-detection' })).toEqual(defaults);
    }
  });
});
