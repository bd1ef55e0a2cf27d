/**
 * The fault points `FAULT_INJECTION` arms (a comma list; src/common/fault-injection.ts names them):
 * none unless `NODE_ENV=test`, so no environment variable can arm one in any other environment.
 * Without an argument it reads this process's environment: for the one setting needed before the
 * configuration exists, the generation worker's static BullMQ options.
 */
export function armedFaults(env: { NODE_ENV?: string; FAULT_INJECTION?: string } = process.env): string[] {
  if (env.NODE_ENV !== 'test') return [];
  return (env.FAULT_INJECTION ?? '')
    .split(',')
    .map((f) => f.trim())
    .filter(Boolean);
}
