import { DynamicModule, Global, Module } from '@nestjs/common';
import { MetricsController } from './metrics.controller';
import { MetricsService } from './metrics.service';

/**
 * Prometheus metrics (prom-client). Global: feature modules record through MetricsService. The
 * HTTP app adds GET /metrics (`forRoot({ http: true })`); the worker and the CLI only record.
 */
@Global()
@Module({})
export class MetricsModule {
  static forRoot(opts: { http: boolean }): DynamicModule {
    return {
      module: MetricsModule,
      controllers: opts.http ? [MetricsController] : [],
      providers: [MetricsService],
      exports: [MetricsService],
    };
  }
}
