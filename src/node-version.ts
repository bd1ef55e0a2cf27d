/**
 * The oldest Node.js this service runs on: package.json's `engines.node` (`>=22.12`; a unit test keeps
 * the two in step). On an older Node a native dependency can crash the process while it loads, with a
 * segmentation fault and no message (argon2's prebuilt binary under Node 20.20), so every entry point
 * checks the version before it loads anything else.
 */
export const MINIMUM_NODE = '22.12.0';

const parts = (version: string): number[] =>
  version
    .replace(/^v/, '')
    .split('.')
    .map((p) => Number.parseInt(p, 10) || 0);

/** Whether `version` (`20.20.2` or `v20.20.2`) is older than `minimum`. */
export function olderThan(version: string, minimum: string): boolean {
  const [have, need] = [parts(version), parts(minimum)];
  for (let i = 0; i < 3; i += 1) {
    if ((have[i] ?? 0) !== (need[i] ?? 0)) return (have[i] ?? 0) < (need[i] ?? 0);
  }
  return false;
}

/** The one line an entry point prints before it exits on an older Node, or null when this Node will do. */
export function nodeVersionProblem(version: string, execPath: string): string | null {
  if (!olderThan(version, MINIMUM_NODE)) return null;
  return (
    `error: this service needs Node.js ${MINIMUM_NODE} or later; ${execPath} is Node.js ${version.replace(/^v/, '')}. ` +
    'Install Node 22 (README, "The two commands": nvm install, or the npm registry\'s node@22 package) and ' +
    'run it again.'
  );
}
