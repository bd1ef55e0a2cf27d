/**
 * Logs a run of the same error (a queue worker's connection errors while Redis is away, several a
 * second) as its first occurrence and then at most one line per `intervalMs` saying how many more
 * came, instead of one line each. Errors with different messages are counted apart.
 */
export class RepeatedErrorLog {
  private readonly runs = new Map<string, { loggedAt: number; more: number }>();

  constructor(
    private readonly write: (line: string) => void,
    private readonly intervalMs = 30_000,
    private readonly now: () => number = Date.now,
  ) {}

  report(message: string): void {
    const t = this.now();
    const run = this.runs.get(message);
    if (run && t - run.loggedAt < this.intervalMs) {
      run.more += 1;
      return;
    }
    const more = run && run.more > 0 ? ` (${run.more} more since the last line)` : '';
    // Bounded: messages that name a job or a key would otherwise grow the map for ever.
    if (!run && this.runs.size >= 100) this.runs.clear();
    this.runs.set(message, { loggedAt: t, more: 0 });
    this.write(`${message}${more}`);
  }
}
