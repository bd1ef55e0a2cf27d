import { DynamicModule, Module } from '@nestjs/common';
import { AppConfigModule } from '../config/config.module';
import { AllConfig } from '../config/configuration';
import { DatabaseModule } from '../database/database.module';
import { CatalogueImportModule } from '../products/catalogue-import.module';
import { CatalogueImportCommand } from '../products/catalogue-import.command';
import { RedisModule } from '../redis/redis.module';

/**
 * `catalogue:import` without `--analyse-images`: the import's own modules only (configuration, database,
 * Redis for the import metrics). The whole CLI module loads the image fetcher, the taste engine, the
 * queues and the dashboard too, about 0.6 s of CPU before the first row (docs/decisions/0029).
 */
@Module({})
export class CatalogueImportCliModule {
  static forRoot(config: AllConfig): DynamicModule {
    return {
      module: CatalogueImportCliModule,
      imports: [AppConfigModule.forRoot(config), DatabaseModule, RedisModule, CatalogueImportModule],
      providers: [CatalogueImportCommand],
    };
  }
}
