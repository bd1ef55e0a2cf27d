import { Controller, Get, Inject, ServiceUnavailableException } from '@nestjs/common';
import { ApiExcludeController } from '@nestjs/swagger';
import { HealthCheckService, HealthIndicatorService, TypeOrmHealthIndicator } from '@nestjs/terminus';
import Redis from 'ioredis';
import { Public } from '../auth/public.decorator';
import { ShutdownState } from '../lifecycle/shutdown-state';
import { REDIS } from '../redis/redis.module';
import { HEALTH_CHECKS, ReadinessCheck } from './health.tokens';

type CheckState = 'up' | 'down';

@ApiExcludeController()
@Public()
@Controller('health')
export class HealthController {
  constructor(
    private readonly health: HealthCheckService,
    private readonly db: TypeOrmHealthIndicator,
    private readonly indicator: HealthIndicatorService,
    @Inject(REDIS) private readonly redis: Redis,
    @Inject(HEALTH_CHECKS) private readonly extra: ReadinessCheck[],
    private readonly shutdown: ShutdownState,
  ) {}

  @Get('live')
  live(): { status: string } {
    return { status: 'ok' };
  }

  /**
   * 200 with terminus's body plus `checks` (`{ postgres: 'up', redis: 'up', storage: 'up' }`) when
   * every dependency answers; otherwise 503 with the error body and the same `checks`, naming what
   * is down.
   */
  @Get('ready')
  async ready(): Promise<Record<string, unknown>> {
    // Draining after SIGTERM: load balancers stop sending new requests here.
    if (this.shutdown.draining) throw new ServiceUnavailableException('Shutting down.');
    const redis: ReadinessCheck = { name: 'redis', ping: async () => void (await this.redis.ping()) };
    const checks = [
      () => this.db.pingCheck('postgres', { timeout: 2000 }),
      ...[redis, ...this.extra].map((c) => async () => {
        const check = this.indicator.check(c.name);
        try {
          await c.ping();
          return check.up();
        } catch (err) {
          return check.down({ message: String(err) });
        }
      }),
    ];
    try {
      const result = await this.health.check(checks);
      return { ...result, checks: states(result.details) };
    } catch (err) {
      const details = detailsOf(err);
      if (!details) throw err;
      const byName = states(details);
      const down = Object.keys(byName).filter((k) => byName[k] === 'down');
      throw new ServiceUnavailableException({
        message: `Not ready: ${down.join(', ')} ${down.length === 1 ? 'is' : 'are'} down.`,
        checks: byName,
      });
    }
  }
}

function states(details: Record<string, { status: string }>): Record<string, CheckState> {
  return Object.fromEntries(
    Object.entries(details).map(([name, d]) => [name, d.status === 'up' ? 'up' : 'down']),
  );
}

/** The per-check details of terminus's 503 (its exception carries the whole result). */
function detailsOf(err: unknown): Record<string, { status: string }> | null {
  if (!(err instanceof ServiceUnavailableException)) return null;
  const details = (err.getResponse() as { details?: Record<string, { status: string }> }).details;
  return details ?? null;
}
