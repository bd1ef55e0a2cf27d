import { freePort } from '../support/app';
import { spawnEntry, waitForStatus } from '../support/spawned';

/** README, Safe defaults: "Production start". */
const SAFE = {
  NODE_ENV: 'production',
  API_KEY_PEPPER: 'a-production-pepper-of-forty-characters!!',
  SESSION_SECRET: 'a-production-session-secret-of-40-chars!',
  PUBLIC_BASE_URL: 'https://taste.example.com',
  LOG_LEVEL: 'silent',
};

/** Exits before Nest is loaded: the contract's bound is 10 s; the kill below is a generous backstop. */
async function refused(entry: 'main' | 'worker' | 'cli', env: Record<string, string>, args: string[] = []) {
  const p = spawnEntry(entry, env, args);
  const timer = setTimeout(() => p.child.kill('SIGKILL'), 30000);
  const code = await p.exited;
  clearTimeout(timer);
  return { code, output: p.output() };
}

describe('production start rules (spawned processes)', () => {
  const unsafe: [string, Record<string, string | undefined>, string][] = [
    ['API_KEY_PEPPER unset', { API_KEY_PEPPER: undefined }, 'API_KEY_PEPPER is not set'],
    [
      'API_KEY_PEPPER short',
      { API_KEY_PEPPER: 'short-pepper-31-characters-long' },
      'API_KEY_PEPPER is shorter than 32',
    ],
    [
      'API_KEY_PEPPER development',
      { API_KEY_PEPPER: 'taste-dev-pepper-change-me' },
      'API_KEY_PEPPER is a development default',
    ],
    ['SESSION_SECRET unset', { SESSION_SECRET: undefined }, 'SESSION_SECRET is not set'],
    ['SESSION_SECRET short', { SESSION_SECRET: 'x'.repeat(31) }, 'SESSION_SECRET is shorter than 32'],
    [
      'SESSION_SECRET development',
      { SESSION_SECRET: 'taste-dev-session-secret-change-me' },
      'SESSION_SECRET is a development default',
    ],
    [
      'PUBLIC_BASE_URL http',
      { PUBLIC_BASE_URL: 'http://taste.example.com' },
      'PUBLIC_BASE_URL must be an https://',
    ],
    ['PUBLIC_BASE_URL unset', { PUBLIC_BASE_URL: undefined }, 'PUBLIC_BASE_URL must be an https://'],
  ];

  it.each(unsafe)('the API exits non-zero naming the variable: %s', async (_name, change, message) => {
    const env: Record<string, string> = { ...SAFE };
    for (const [k, v] of Object.entries(change)) {
      if (v === undefined) delete env[k];
      else env[k] = v;
    }
    const { code, output } = await refused('main', env);
    expect(code).toBe(1);
    expect(output).toContain(message);
  });

  it('the worker and the CLI refuse an unsafe setting too', async () => {
    const worker = await refused('worker', { ...SAFE, SESSION_SECRET: 'taste-dev-session-secret-change-me' });
    expect(worker.code).toBe(1);
    expect(worker.output).toContain('SESSION_SECRET is a development default');
    const { API_KEY_PEPPER: _unset, ...noPepper } = SAFE;
    const cli = await refused('cli', noPepper, ['org:create', '--name', 'Never created']);
    expect(cli.code).toBe(1);
    expect(cli.output).toContain('API_KEY_PEPPER is not set');
  });

  it('starts with safe settings (and with an http address when ALLOW_HTTP_PUBLIC_URL=true), then stops on SIGTERM', async () => {
    for (const env of [
      SAFE,
      { ...SAFE, PUBLIC_BASE_URL: 'http://10.0.0.5:8080', ALLOW_HTTP_PUBLIC_URL: 'true' },
    ]) {
      const port = await freePort();
      const p = spawnEntry('main', {
        ...env,
        PORT: String(port),
        SHUTDOWN_DELAY_MS: '0',
        QUEUE_PREFIX: `prod-${port}`,
      });
      try {
        await waitForStatus(`http://127.0.0.1:${port}/health/ready`, 200);
      } catch (err) {
        p.child.kill('SIGKILL');
        throw new Error(`${String(err)}\n${p.output()}`);
      }
      p.child.kill('SIGTERM');
      expect(await p.exited).toBe(0);
    }
  });
});
