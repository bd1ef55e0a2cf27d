import { Controller, Get, Inject, ServiceUnavailableException } from '@nestjs/common';
import { ApiExcludeController } from '@nestjs/swagger';
import {
  HealthCheck,
  HealthCheckService,
  HealthIndicatorService,
  TypeOrmHealthIndicator,
} from '@nestjs/terminus';
import Redis from 'ioredis';
import { Public } from '../auth/public.decorator';
import { ShutdownState } from '../lifecycle/shutdown-state';
import { REDIS } from '../redis/redis.module';
import { HEALTH_CHECKS, ReadinessCheck } from './health.tokens';

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

  @Get('ready')
  @HealthCheck()
  ready() {
    // Draining after SIGTERM: load balancers stop sending new requests here.
    if (this.shutdown.draining) throw new ServiceUnavailableException('Shutting down.');
    const redis: ReadinessCheck = { name: 'redis', ping: async () => void (await this.redis.ping()) };
    return this.health.check([
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
    ]);
  }
}
