import { accessSync, constants } from 'node:fs';

/** Chromium from the distribution package (`apt-get install chromium`); override with CHROMIUM_PATH. */
export const CHROMIUM_PATH = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';

/** The one command that installs the browser the dashboard tests drive (what .ci/run does). */
export const CHROMIUM_INSTALL = 'sudo apt-get install -y chromium';

/** True on a CI runner (CI=true, as GitHub Actions, GitLab and most others set it). */
export const IN_CI = !!process.env.CI && !['0', 'false'].includes(process.env.CI.toLowerCase());

/** Null when Chromium can be launched from CHROMIUM_PATH, else the one message to print. */
export function chromiumMissing(): string | null {
  try {
    accessSync(CHROMIUM_PATH, constants.X_OK);
    return null;
  } catch {
    return (
      `Chromium not found at ${CHROMIUM_PATH}: the browser tests (test/e2e/dashboard) need it. ` +
      `Install it with: ${CHROMIUM_INSTALL}   (or set CHROMIUM_PATH to a Chromium or Chrome binary)`
    );
  }
}
