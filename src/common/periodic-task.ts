import { Logger } from '@nestjs/common';

/**
 * Runs `work` once soon after start and then every `intervalMs` (0: never), one run at a time, never
 * keeping the process alive. A failed run is logged and the next one tries again.
 */
export class PeriodicTask {
  private timer: NodeJS.Timeout | undefined;
  private running: Promise<unknown> | undefined;

  constructor(
    private readonly name: string,
    private readonly intervalMs: number,
    private readonly work: () => Promise<unknown>,
    private readonly logger = new Logger(name),
  ) {}

  start(): void {
    if (this.intervalMs <= 0) return;
    const tick = (): void => {
      if (this.running) return;
      this.running = this.work()
        .catch((err: unknown) => this.logger.warn(`${this.name} failed, will retry: ${String(err)}`))
        .finally(() => (this.running = undefined));
    };
    setImmediate(tick);
    this.timer = setInterval(tick, this.intervalMs);
    this.timer.unref();
  }

  /** Stops the schedule and waits for a run in progress. */
  async stop(): Promise<void> {
    clearInterval(this.timer);
    this.timer = undefined;
    await this.running;
  }
}
