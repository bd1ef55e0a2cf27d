import type { DynamicModule } from '@nestjs/common';
import { ConfigService } from '@nestjs/config';
import { Test } from '@nestjs/testing';
import type { AllConfig } from '../config/configuration';
import { FsImageStore } from './fs-image-store';
import { ImageIngestionService } from './image-ingestion.service';
import { ImageStore } from './image-store';
import { S3ImageStore } from './s3-image-store';
import { createImageStore, StorageModule } from './storage.module';

function configWith(driver: 'fs' | 's3'): ConfigService<AllConfig, true> {
  const values: Pick<AllConfig, 'app' | 'storage' | 'ingest'> = {
    app: {
      env: 'test',
      port: 3000,
      role: 'all',
      logLevel: 'silent',
      publicBaseUrl: 'http://localhost:3000',
      bodyLimit: '1mb',
    },
    storage: {
      driver,
      dir: '/tmp/taste-storage-module-spec',
      s3: {
        endpoint: 'http://127.0.0.1:9000',
        bucket: 'b',
        accessKey: 'a',
        secretKey: 's',
        region: 'us-east-1',
        publicUrl: '',
      },
    },
    ingest: { allowedHosts: [], timeoutMs: 1000 },
  };
  return { get: (key: keyof typeof values) => values[key] } as unknown as ConfigService<AllConfig, true>;
}

describe('StorageModule', () => {
  it('selects the driver from config', () => {
    expect(createImageStore(configWith('fs'))).toBeInstanceOf(FsImageStore);
    expect(createImageStore(configWith('s3'))).toBeInstanceOf(S3ImageStore);
    expect(createImageStore(configWith('s3')).publicUrl(`img/${'0'.repeat(32)}.png`)).toBe(
      `http://127.0.0.1:9000/b/img/${'0'.repeat(32)}.png`,
    );
  });

  it('exports ImageStore and ImageIngestionService', async () => {
    const config: DynamicModule = {
      module: class StubConfigModule {},
      global: true,
      providers: [{ provide: ConfigService, useValue: configWith('fs') }],
      exports: [ConfigService],
    };
    const moduleRef = await Test.createTestingModule({ imports: [config, StorageModule] }).compile();
    expect(moduleRef.get(ImageStore)).toBeInstanceOf(FsImageStore);
    expect(moduleRef.get(ImageIngestionService)).toBeInstanceOf(ImageIngestionService);
    await moduleRef.close();
  });
});
