import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { MINIMUM_NODE, nodeVersionProblem, olderThan } from '../../src/node-version';
import { runAsync } from '../support/cli';
import { TS_REGISTER } from '../support/ts-register';

const ROOT = join(__dirname, '..', '..');
const PRETEND_NODE_20 = join(ROOT, 'test', 'fixtures', 'pretend-node-20.js');

describe('the Node.js version every entry point requires', () => {
  it("is package.json's engines.node", () => {
    const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { engines: { node: string } };
    expect(pkg.engines.node).toBe(`>=${MINIMUM_NODE.replace(/\.0$/, '')}`);
  });

  it('compares major, minor and patch as numbers', () => {
    expect(olderThan('20.20.2', '22.12.0')).toBe(true);
    expect(olderThan('v22.11.9', '22.12.0')).toBe(true);
    expect(olderThan('22.9.0', '22.12.0')).toBe(true);
    expect(olderThan('22.12.0', '22.12.0')).toBe(false);
    expect(olderThan('22.23.3', '22.12.0')).toBe(false);
    expect(olderThan('24.0.0', '22.12.0')).toBe(false);
    expect(olderThan('100.1.0', '22.12.0')).toBe(false);
  });

  it('names the version found, the binary and the way to a supported one', () => {
    expect(nodeVersionProblem('22.23.3', '/usr/local/bin/node')).toBeNull();
    expect(nodeVersionProblem('v20.20.2', '/usr/bin/node')).toBe(
      'error: this service needs Node.js 22.12.0 or later; /usr/bin/node is Node.js 20.20.2. ' +
        'Install Node 22 (README, "The two commands": nvm install, or the npm registry\'s node@22 package) ' +
        'and run it again.',
    );
  });

  // Before: `node dist/main.js` (and the CLI, the worker) on the system's Node 20 ended with a
  // segmentation fault while argon2 loaded, exit 139 and nothing printed.
  it.each(['main', 'worker', 'cli', 'openapi'])(
    'src/%s.ts on an older Node prints that one line and exits 1 before it loads anything',
    async (entry) => {
      const res = await runAsync(
        process.execPath,
        ['-r', PRETEND_NODE_20, '-r', TS_REGISTER, join(ROOT, 'src', `${entry}.ts`), '--help'],
        // Settings that would make a start fail later, and differently: the check must come first.
        { env: { DATABASE_URL: 'postgres://127.0.0.1:1/never', NODE_ENV: 'production', API_KEY_PEPPER: '' } },
      );
      expect(res.stdout).toBe('');
      expect(res.stderr.trim().split('\n')).toEqual([
        `error: this service needs Node.js 22.12.0 or later; ${process.execPath} is Node.js 20.20.2. ` +
          'Install Node 22 (README, "The two commands": nvm install, or the npm registry\'s node@22 package) ' +
          'and run it again.',
      ]);
      expect(res.code).toBe(1);
    },
    60_000,
  );
});
