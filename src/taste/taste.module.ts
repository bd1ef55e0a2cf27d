import { Module } from '@nestjs/common';
import { ConfigService } from '@nestjs/config';
import type { AllConfig } from '../config/configuration';
import { TASTE_PROVIDER } from './taste-provider';
import { createTasteProvider, TasteService } from './taste.service';

/** The taste engine. Only TasteService is exported; the provider is chosen by TASTE_PROVIDER. */
@Module({
  providers: [
    {
      provide: TASTE_PROVIDER,
      inject: [ConfigService],
      useFactory: (config: ConfigService<AllConfig, true>) => createTasteProvider(config),
    },
    TasteService,
  ],
  exports: [TasteService],
})
export class TasteModule {}
