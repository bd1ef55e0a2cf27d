import { Module } from '@nestjs/common';
import { ConfigService } from '@nestjs/config';
import type { AllConfig } from '../config/configuration';
import { FsImageStore } from './fs-image-store';
import { ImageIngestionService } from './image-ingestion.service';
import { ImageStore } from './image-store';
import { ImagesController } from './images.controller';
import { S3ImageStore } from './s3-image-store';

/** Builds the configured ImageStore driver (`STORAGE_DRIVER`: `fs` by default, or `s3`). */
export function createImageStore(config: ConfigService<AllConfig, true>): ImageStore {
  const storage = config.get('storage', { infer: true });
  if (storage.driver === 's3') return new S3ImageStore(storage.s3);
  return new FsImageStore(storage.dir, config.get('app', { infer: true }).publicBaseUrl);
}

@Module({
  controllers: [ImagesController],
  providers: [
    { provide: ImageStore, useFactory: createImageStore, inject: [ConfigService] },
    ImageIngestionService,
  ],
  exports: [ImageStore, ImageIngestionService],
})
export class StorageModule {}
