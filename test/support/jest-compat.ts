/**
 * Runs Jest-style specs (describe/it/beforeAll/expect/jest.fn) on Node's built-in test runner.
 * Why: NestJS 12 ships ES modules only and Jest on Node 20 cannot load them, while Node 20.19+
 * `require`s them natively. See docs/decisions/0002-test-runner.md.
 */
import { after, afterEach, before, beforeEach, describe as nodeDescribe, it as nodeIt } from 'node:test';
import { expect } from 'expect';
import { ModuleMocker } from 'jest-mock';

type Fn = () => unknown | Promise<unknown>;
type TableFn = (...args: never[]) => unknown | Promise<unknown>;

function format(title: string, row: unknown[]): string {
  let i = 0;
  return title.replace(/%[sdipjo#%]/g, (token) => {
    if (token === '%%') return '%';
    if (token === '%#') return String(i);
    const value = row[i++];
    return token === '%p' || token === '%j' || token === '%o' ? JSON.stringify(value) : String(value);
  });
}

function makeIt(base: typeof nodeIt) {
  const define = (only: boolean) => (name: string, fn?: Fn, timeout?: number) =>
    base(name, { timeout: timeout ?? 60_000, only }, fn ? async () => void (await fn()) : undefined);
  const wrapped = define(false);
  const each =
    (table: readonly unknown[]) =>
    (title: string, fn: TableFn, timeout?: number): void => {
      table.forEach((entry, index) => {
        const row = Array.isArray(entry) ? entry : [entry];
        const name = format(title, row).replace(/%#/g, String(index));
        wrapped(name, () => (fn as (...a: unknown[]) => unknown)(...row), timeout);
      });
    };
  return Object.assign(wrapped, {
    each,
    // Node runs only the focused tests under --test-only, which test/run.ts passes when a file has one.
    only: define(true),
    skip: (name: string) => base(name, { skip: true }),
    todo: (name: string) => base(name, { todo: true }),
  });
}

const it = makeIt(nodeIt);
const describe = Object.assign((name: string, fn: () => void) => nodeDescribe(name, fn), {
  each:
    (table: readonly unknown[]) =>
    (title: string, fn: TableFn): void => {
      table.forEach((entry) => {
        const row = Array.isArray(entry) ? entry : [entry];
        nodeDescribe(format(title, row), () => (fn as (...a: unknown[]) => void)(...row));
      });
    },
  only: (name: string, fn: () => void) => nodeDescribe(name, { only: true }, fn),
  skip: (name: string) => nodeDescribe(name, { skip: true }),
});

const hook =
  (h: typeof before) =>
  (fn: Fn, timeout?: number): void =>
    h(async () => void (await fn()), { timeout: timeout ?? 120_000 });

const mocker = new ModuleMocker(globalThis);
const jestLike = {
  fn: mocker.fn.bind(mocker),
  spyOn: mocker.spyOn.bind(mocker),
  clearAllMocks: () => mocker.clearAllMocks(),
  restoreAllMocks: () => mocker.restoreAllMocks(),
  setTimeout: () => undefined,
};

Object.assign(globalThis, {
  describe,
  it,
  test: it,
  beforeAll: hook(before),
  afterAll: hook(after),
  beforeEach: hook(beforeEach),
  afterEach: hook(afterEach),
  expect,
  jest: jestLike,
});
