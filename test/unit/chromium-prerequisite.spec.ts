import { join } from 'node:path';
import { runAsync } from '../support/cli';
import { TS_REGISTER } from '../support/ts-register';

const ROOT = join(__dirname, '..', '..');

/** `npm test` without Chromium on a CI runner: one message naming the install command, and a failure. */
describe('the Chromium prerequisite of npm test', () => {
  it('in CI, a missing browser fails the run before anything starts, with one message', async () => {
    const res = await runAsync(
      process.execPath,
      ['-r', TS_REGISTER, join(ROOT, 'test', 'run.ts'), 'test/e2e/dashboard'],
      // A database name that must never be created: the run has to stop before the global setup.
      { env: { CI: 'true', CHROMIUM_PATH: '/nonexistent/chromium', TEST_DB_NAME: 'taste_never_created' } },
    );
    expect(res.code).toBe(1);
    expect(res.stdout).toBe('');
    expect(res.stderr.trim().split('\n')).toEqual([
      'error: Chromium not found at /nonexistent/chromium: the browser tests (test/e2e/dashboard) need it. ' +
        'Install it with: sudo apt-get install -y chromium   (or set CHROMIUM_PATH to a Chromium or Chrome binary)',
    ]);
  }, 120_000);
});
