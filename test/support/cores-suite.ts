import { readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { api } from './api';
import { createOrgWithKey, OrgWithKey, startTestApp, TestApp } from './app';
import { colourPng } from './cores';
import { HttpsFixture, startHttpsFixture } from './https-fixture';

/** What the cores e2e suites share: the app, the HTTPS image fixture, two organizations and a red PNG. */
export interface CoresSuite {
  t: TestApp;
  fixture: HttpsFixture;
  org: OrgWithKey;
  other: OrgWithKey;
  red: string;
  /** The API as `org`. */
  A: () => ReturnType<typeof api>;
  /** The API as `other`. */
  B: () => ReturnType<typeof api>;
}

/**
 * Registers the suite's setup and teardown (call it inside a `describe`): one app that may fetch
 * images from the local HTTPS fixture, with the create and general budgets out of the way. The
 * fields are set once `beforeAll` has run.
 */
export function useCoresSuite(): CoresSuite {
  const s = {
    A: () => api(s.t, s.org.key),
    B: () => api(s.t, s.other.key),
  } as CoresSuite;
  beforeAll(async () => {
    s.fixture = await startHttpsFixture();
    s.t = await startTestApp({
      IMAGE_FETCH_ALLOWED_HOSTS: 'localhost',
      RATE_LIMIT_CREATE_PER_MIN: '100000',
      RATE_LIMIT_GENERAL_PER_MIN: '100000',
    });
    s.org = await createOrgWithKey(s.t.app, 'Cores Org');
    s.other = await createOrgWithKey(s.t.app, 'Other Org');
    s.red = await colourPng('#c8202f');
  });
  afterAll(async () => {
    await s.t.close();
    await s.fixture.close();
  });
  return s;
}

/** Every stored file below `dir` (none when nothing was stored yet). */
export function filesUnder(dir: string): string[] {
  try {
    return readdirSync(dir).flatMap((n) => {
      const p = join(dir, n);
      return statSync(p).isDirectory() ? filesUnder(p) : [p];
    });
  } catch (err) {
    // Nothing stored yet; any other error must fail the test rather than read as "no files".
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return [];
    throw err;
  }
}
