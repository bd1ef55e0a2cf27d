import { Injectable } from '@nestjs/common';
import { ConfigService } from '@nestjs/config';
import { AllConfig } from '../config/configuration';

/**
 * Named steps where a test can make this process die (SIGKILL, as a crash or an OOM kill would) or
 * stall. Armed through `FAULT_INJECTION` (comma list), which the configuration honours only when
 * `NODE_ENV=test`: in any other environment no point is ever armed.
 */
export type FaultPoint =
  /** Core create: images stored, transaction not yet committed. */
  | 'crash-before-core-commit'
  /** Core create: transaction committed, job not yet enqueued. */
  | 'crash-after-core-commit'
  /** Generation: images read, result not yet written (a 3 s pause, so a test can kill the worker). */
  | 'slow-generation'
  /**
   * Not a step but a setting: the generation worker holds a job's lock for 4 s and looks for stalled
   * jobs every second (20 s and 10 s otherwise), so a test that kills workers waits seconds per kill.
   */
  | 'fast-stall-detection';

@Injectable()
export class FaultInjector {
  private readonly armed: Set<string>;

  constructor(config: ConfigService<AllConfig, true>) {
    this.armed = new Set(config.get('faults', { infer: true }));
  }

  /** Kills this process at once when `point` is armed. */
  crashAt(point: FaultPoint): void {
    if (this.armed.has(point)) process.kill(process.pid, 'SIGKILL');
  }

  /** Pauses for `ms` when `point` is armed. */
  async pauseAt(point: FaultPoint, ms: number): Promise<void> {
    if (this.armed.has(point)) await new Promise((r) => setTimeout(r, ms));
  }
}
