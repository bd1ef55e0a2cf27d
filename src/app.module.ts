import { DynamicModule, Module } from '@nestjs/common';
import { APP_FILTER } from '@nestjs/core';
import { AuditModule } from './audit/audit.module';
import { AuthModule } from './auth/auth.module';
import { CoreGenerationWorkerModule, CoresModule } from './cores/cores.module';
import { AllExceptionsFilter } from './common/http-exception.filter';
import { AppConfigModule } from './config/config.module';
import { AllConfig } from './config/configuration';
import { DashboardModule } from './dashboard/dashboard.module';
import { QueueBoardModule } from './dashboard/queue-board';
import { DatabaseModule } from './database/database.module';
import { HealthModule } from './health/health.module';
import { HEALTH_CHECKS } from './health/health.tokens';
import { JobsModule } from './jobs/jobs.module';
import { LifecycleModule } from './lifecycle/shutdown-state';
import { LoggingModule } from './logging/logging.module';
import { McpModule } from './mcp/mcp.module';
import { MetricsModule } from './metrics/metrics.module';
import { ProductsModule } from './products/products.module';
import { RedisModule } from './redis/redis.module';
import { ImageStore, StorageModule } from './storage';
import { ThrottlingModule } from './throttling/throttling.module';
import { WebhookDeliveryWorkerModule, WebhooksModule } from './webhooks/webhooks.module';

/**
 * The HTTP application. `config.app.role` decides whether this process also runs the
 * background processors (`all`, the default) or only serves requests (`api`).
 */
@Module({})
export class AppModule {
  static forRoot(config: AllConfig): DynamicModule {
    return {
      module: AppModule,
      imports: [
        AppConfigModule.forRoot(config),
        LoggingModule,
        MetricsModule.forRoot({ http: true }),
        LifecycleModule,
        DatabaseModule,
        RedisModule,
        AuditModule,
        AuthModule,
        ThrottlingModule,
        StorageModule,
        JobsModule,
        CoresModule,
        ProductsModule,
        WebhooksModule,
        ...(config.app.role === 'api' ? [] : [CoreGenerationWorkerModule, WebhookDeliveryWorkerModule]),
        HealthModule.forRoot([StorageModule], {
          provide: HEALTH_CHECKS,
          inject: [ImageStore],
          useFactory: (store: ImageStore) => [{ name: 'storage', ping: () => store.ping() }],
        }),
        DashboardModule,
        QueueBoardModule,
        McpModule,
      ],
      providers: [{ provide: APP_FILTER, useClass: AllExceptionsFilter }],
    };
  }
}
