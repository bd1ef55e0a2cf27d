import { parseArgs } from 'node:util';
import { DynamicModule, Module } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { AppConfigModule } from '../config/config.module';
import { AllConfig } from '../config/configuration';
import { DatabaseModule } from '../database/database.module';
import { CatalogueImportModule } from '../products/catalogue-import.module';
import { CatalogueImportRunner } from '../products/catalogue-import.runner';
import { CliLogger } from './cli-output';
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
      providers: [CatalogueImportRunner],
    };
  }
}

/**
 * Runs `catalogue:import --file F` in an application context of `CatalogueImportCliModule`, without
 * nest-commander: its command discovery and its prompt library (inquirer, lodash, rxjs) were a seventh of
 * the import's start-up CPU (docs/decisions/0032). `--help` and `--analyse-images` still go through
 * the whole CLI (`src/cli.ts`). An unknown option is an error, as nest-commander makes it.
 */
export async function runCatalogueImport(config: AllConfig, args: string[]): Promise<void> {
  const { values } = parseArgs({ args, options: { file: { type: 'string' } }, strict: true });
  const app = await NestFactory.createApplicationContext(CatalogueImportCliModule.forRoot(config), {
    logger: new CliLogger(),
    abortOnError: false,
  });
  try {
    await app.get(CatalogueImportRunner).run({ file: values.file });
  } finally {
    await app.close();
  }
}
