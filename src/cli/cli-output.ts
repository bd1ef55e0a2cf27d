/** CLI commands print exactly one JSON document on stdout; diagnostics go to stderr. */
export function printJson(value: unknown): void {
  process.stdout.write(JSON.stringify(value, null, 2) + '\n');
}

export class CliUsageError extends Error {}

export function requireOption(value: string | undefined, flag: string): string {
  if (value === undefined || value.trim() === '') throw new CliUsageError(`missing required option ${flag}`);
  return value.trim();
}
