import { Logger, OnApplicationBootstrap, OnApplicationShutdown } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { withAdvisoryLock } from '../database/advisory-lock';

/**
 * Background upkeep shared by several processes: `work` runs once soon after start and then every
 * `intervalMs` (0: never), one run at a time per process and, through a PostgreSQL advisory lock
 * named `lockName`, one process at a time. Only processes with the worker role schedule it
 * (`ROLE=all` or `worker`). A failed run is logged and the next one tries again; the timer never
 * keeps the process alive.
 */
export abstract class UpkeepTask<T> implements OnApplicationBootstrap, OnApplicationShutdown {
  protected abstract readonly logger: Logger;
  private timer: NodeJS.Timeout | undefined;
  private running: Promise<unknown> | undefined;

  protected constructor(
    private readonly lockName: string,
    private readonly dataSource: DataSource,
    private readonly intervalMs: number,
    private readonly role: string,
  ) {}

  /** One pass of the work; null when another process holds the lock. */
  runOnce(): Promise<T | null> {
    return withAdvisoryLock(this.dataSource, this.lockName, () => this.work());
  }

  protected abstract work(): Promise<T>;

  onApplicationBootstrap(): void {
    if (this.role === 'api' || this.intervalMs <= 0) return;
    const tick = (): void => {
      if (this.running) return;
      this.running = this.runOnce()
        .catch((err: unknown) => this.logger.warn(`${this.lockName} failed, will retry: ${String(err)}`))
        .finally(() => (this.running = undefined));
    };
    setImmediate(tick);
    this.timer = setInterval(tick, this.intervalMs);
    this.timer.unref();
  }

  /** Stops the schedule and waits for a run in progress. */
  async onApplicationShutdown(): Promise<void> {
    clearInterval(this.timer);
    this.timer = undefined;
    await this.running;
  }
}
