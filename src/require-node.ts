import { nodeVersionProblem } from './node-version';

/**
 * Imported first by every entry point (main, worker, cli, openapi): on a Node older than the service
 * supports, one line on stderr and exit 1, before any dependency is loaded.
 */
const problem = nodeVersionProblem(process.versions.node, process.execPath);
if (problem) {
  process.stderr.write(`${problem}\n`);
  process.exit(1);
}
