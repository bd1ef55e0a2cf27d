import { Global, Injectable, Module } from '@nestjs/common';

/** Set when the process received SIGTERM: readiness answers 503 from then on. */
@Injectable()
export class ShutdownState {
  private drainingSince: number | null = null;

  get draining(): boolean {
    return this.drainingSince !== null;
  }

  begin(): void {
    this.drainingSince ??= Date.now();
  }
}

@Global()
@Module({ providers: [ShutdownState], exports: [ShutdownState] })
export class LifecycleModule {}
