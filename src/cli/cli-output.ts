import type { LoggerService } from '@nestjs/common';

/** CLI commands print exactly one JSON document on stdout; diagnostics go to stderr. */
export function printJson(value: unknown): void {
  process.stdout.write(JSON.stringify(value, null, 2) + '\n');
}

export class CliUsageError extends Error {}

export function requireOption(value: string | undefined, flag: string): string {
  if (value === undefined || value.trim() === '') throw new CliUsageError(`missing required option ${flag}`);
  return value.trim();
}

/**
 * Nest's logger for the CLI: an error Nest logs as a message (TypeORM's "Unable to connect to the
 * database. Retrying (1)...") is one line on stderr, without its stack; an error Nest logs as an
 * exception (a failed start) is left out, because it is thrown on and the CLI prints it as
 * `error: <message>`. Nothing else is printed: stdout is the command's JSON.
 */
export class CliLogger implements LoggerService {
  error(message: unknown): void {
    if (message instanceof Error) return;
    process.stderr.write(`${String(message)}\n`);
  }

  log(): void {}

  warn(): void {}
}
