import { ConcurrencyLimiter, mapBounded } from './concurrency';

const tick = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe('mapBounded', () => {
  it('keeps order and never runs more than the limit at once', async () => {
    let running = 0;
    let peak = 0;
    const out = await mapBounded([5, 1, 4, 2, 3], 2, async (n, i) => {
      running += 1;
      peak = Math.max(peak, running);
      await tick(n);
      running -= 1;
      return `${i}:${n}`;
    });
    expect(out).toEqual(['0:5', '1:1', '2:4', '3:2', '4:3']);
    expect(peak).toBe(2);
  });

  it('starts nothing after a failure and throws the failure of the lowest index', async () => {
    const started: number[] = [];
    const run = mapBounded([0, 1, 2, 3, 4, 5], 2, async (n) => {
      started.push(n);
      await tick(n === 0 ? 20 : 1);
      if (n === 0 || n === 1) throw new Error(`failed ${n}`);
      return n;
    });
    await expect(run).rejects.toThrow('failed 0');
    expect(started).toEqual([0, 1]);
  });
});

describe('ConcurrencyLimiter', () => {
  it('queues tasks beyond the limit in order', async () => {
    const limiter = new ConcurrencyLimiter(1);
    const order: string[] = [];
    await Promise.all(
      ['a', 'b', 'c'].map((name) =>
        limiter.run(async () => {
          order.push(`start ${name}`);
          await tick(2);
          order.push(`end ${name}`);
        }),
      ),
    );
    expect(order).toEqual(['start a', 'end a', 'start b', 'end b', 'start c', 'end c']);
  });
});
