import { DynamicModule, Module } from '@nestjs/common';
import { AuditModule } from '../audit/audit.module';
import { AuthCoreModule } from '../auth/auth.module';
import { AppConfigModule } from '../config/config.module';
import { AllConfig } from '../config/configuration';
import { DashboardUsersModule } from '../dashboard/dashboard.module';
import { UserCreateCommand } from '../dashboard/user-create.command';
import { DatabaseModule } from '../database/database.module';
import { MetricsModule } from '../metrics/metrics.module';
import { CatalogueDemoCommand } from '../products/catalogue-demo.command';
import { CatalogueImportCommand } from '../products/catalogue-import.command';
import { CatalogueImportRunner } from '../products/catalogue-import.runner';
import { ProductsCatalogueModule } from '../products/products.module';
import { RedisModule } from '../redis/redis.module';
import { StorageModule } from '../storage';
import { DemoBootstrapCommand } from './demo.command';
import { OPS_COMMANDS } from './ops.commands';
import { ORG_COMMANDS } from './org.commands';

/** The admin CLI shares the application's modules (services only, no HTTP). */
@Module({})
export class CliModule {
  static forRoot(config: AllConfig): DynamicModule {
    return {
      module: CliModule,
      imports: [
        AppConfigModule.forRoot(config),
        DatabaseModule,
        RedisModule,
        MetricsModule.forRoot({ http: false }),
        AuditModule,
        AuthCoreModule,
        DashboardUsersModule,
        ProductsCatalogueModule,
        StorageModule,
      ],
      providers: [
        ...ORG_COMMANDS,
        DemoBootstrapCommand,
        UserCreateCommand,
        CatalogueImportCommand,
        CatalogueImportRunner,
        CatalogueDemoCommand,
        ...OPS_COMMANDS,
      ],
    };
  }
}
