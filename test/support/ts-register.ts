/**
 * The require hook that runs TypeScript in the tests and in every process they start (the service,
 * the worker, the CLI, analysis threads): SWC, about a third of ts-node's start-up cost per process
 * (docs/decisions/0049-swc-for-the-test-suite.md). It transpiles only; `npm run build` type-checks.
 */
export const TS_REGISTER = '@swc-node/register';
