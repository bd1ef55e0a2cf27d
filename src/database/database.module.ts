import { Module } from '@nestjs/common';
import { ConfigService } from '@nestjs/config';
import { TypeOrmModule } from '@nestjs/typeorm';
import { AllConfig } from '../config/configuration';
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
        };
      },
    }),
  ],
})
export class DatabaseModule {}
