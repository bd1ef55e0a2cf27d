import { Module } from '@nestjs/common';
import { ConfigService } from '@nestjs/config';
import { TypeOrmModule } from '@nestjs/typeorm';
import { AllConfig } from '../config/configuration';
import { isRetryableConnectError } from './connect-retry';
import { dataSourceOptions } from './data-source';

@Module({
  imports: [
    TypeOrmModule.forRootAsync({
      inject: [ConfigService],
      useFactory: (config: ConfigService<AllConfig, true>) => {
        const db = config.get('db', { infer: true });
        return {
          ...dataSourceOptions(db.url, db.replicaUrls, { max: db.poolMax, min: db.poolWarm }),
          migrationsRun: db.migrationsRun,
          autoLoadEntities: false,
          // A starting or unreachable server is retried (@nestjs/typeorm's 10 attempts, 3 s apart); a wrong
          // database name, user or password fails the start at once.
          toRetry: isRetryableConnectError,
          manualInitialization: db.connect === false,
        };
      },
    }),
  ],
})
export class DatabaseModule {}
