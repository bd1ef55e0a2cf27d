import { RepeatedErrorLog } from './repeated-error-log';

describe('RepeatedErrorLog', () => {
  function log(intervalMs = 30_000): { lines: string[]; at: (ms: number) => void; errors: RepeatedErrorLog } {
    const lines: string[] = [];
    let now = 0;
    const errors = new RepeatedErrorLog(
      (line) => lines.push(line),
      intervalMs,
      () => now,
    );
    return { lines, at: (ms) => (now = ms), errors };
  }

  it('writes the first of a run, then one line per interval with the count of the others', () => {
    const { lines, at, errors } = log();
    for (let t = 0; t < 65_000; t += 200) {
      at(t);
      errors.report('worker error: connect ECONNREFUSED');
    }
    expect(lines).toEqual([
      'worker error: connect ECONNREFUSED',
      'worker error: connect ECONNREFUSED (149 more since the last line)',
      'worker error: connect ECONNREFUSED (149 more since the last line)',
    ]);
  });

  it('counts different messages apart, and writes a message again once its interval has passed', () => {
    const { lines, at, errors } = log(1000);
    errors.report('a');
    errors.report('b');
    errors.report('a');
    at(999);
    errors.report('b');
    at(1000);
    errors.report('a');
    errors.report('c');
    expect(lines).toEqual(['a', 'b', 'a (1 more since the last line)', 'c']);
  });
});
