import { DynamicModule, Module } from '@nestjs/common';
import { APP_FILTER } from '@nestjs/core';
import { AuditModule } from './audit/audit.module';
import { AuthModule } from './auth/auth.module';
import { AllExceptionsFilter } from './common/http-exception.filter';
import { AppConfigModule } from './config/config.module';
import { AllConfig } from './config/configuration';
import { DatabaseModule } from './database/database.module';
import { HealthModule } from './health/health.module';
import { LoggingModule } from './logging/logging.module';
import { RedisModule } from './redis/redis.module';

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
        DatabaseModule,
        RedisModule,
        AuditModule,
        AuthModule,
        HealthModule.forRoot(),
      ],
      providers: [{ provide: APP_FILTER, useClass: AllExceptionsFilter }],
    };
  }
}
