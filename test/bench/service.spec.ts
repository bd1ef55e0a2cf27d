import { spawn } from 'node:child_process';
import { machineBusyMs, processCpuMs, reapedChildrenCpuMs, seedList } from '../../bench/service';

describe('bench option parsing: seedList', () => {
  it('reads a range and a comma list, in order, and nothing when the option is absent', () => {
    expect(seedList('9-12', '--seeds')).toEqual([9, 10, 11, 12]);
    expect(seedList('3, 5,7', '--seeds')).toEqual([3, 5, 7]);
    expect(seedList(undefined, '--seeds')).toEqual([]);
  });

  it('names the option when a value is not a seed', () => {
    expect(() => seedList('3,x', '--more-seeds')).toThrow('--more-seeds: not a seed: x');
    expect(() => seedList('0', '--seeds')).toThrow('--seeds: not a seed: 0');
  });
});

describe('bench CPU readers (/proc)', () => {
  it("counts a child's CPU while it runs and once it is reaped, and the machine's busy time with it", async () => {
    const busy0 = machineBusyMs();
    const reaped0 = reapedChildrenCpuMs();
    // Spins until it has used 300 ms of CPU, however busy the machine is.
    const child = spawn(process.execPath, ['-e', 'while (process.cpuUsage().user < 300_000);']);
    let closed = false;
    child.on('close', () => (closed = true));
    let running = 0;
    while (!closed) {
      try {
        running = Math.max(running, processCpuMs(child.pid as number));
      } catch {
        // Reaped between the check and the read.
      }
      await new Promise((r) => setTimeout(r, 10));
    }
    const reaped = reapedChildrenCpuMs() - reaped0;
    expect(running).toBeGreaterThan(0);
    expect(reaped).toBeGreaterThanOrEqual(Math.max(running, 300));
    // Ticks of 10 ms, per core, on both sides of the sum.
    expect(machineBusyMs() - busy0).toBeGreaterThanOrEqual(reaped - 50);
  });
});
