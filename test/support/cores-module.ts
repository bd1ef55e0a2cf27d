import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Test, TestingModule } from '@nestjs/testing';
import { DataSource } from 'typeorm';
import { ApiKeysService } from '../../src/auth/api-keys.service';
import { AuthCoreModule } from '../../src/auth/auth.module';
import { OrgContext } from '../../src/auth/org-context';
import { AppConfigModule } from '../../src/config/config.module';
import { AllConfig, buildConfig, validateEnv } from '../../src/config/configuration';
import { CoreGenerationService } from '../../src/cores/core-generation.service';
import { CoresModule } from '../../src/cores/cores.module';
import { CoresService } from '../../src/cores/cores.service';
import { DatabaseModule } from '../../src/database/database.module';
import { MetricsModule } from '../../src/metrics/metrics.module';
import { OrganizationsService } from '../../src/organizations/organizations.service';
import { RedisModule } from '../../src/redis/redis.module';
import { colourPng } from './cores';

/** CoresModule on the real PostgreSQL and Redis of the test run (no HTTP, no worker: jobs stay queued). */
export interface CoresModuleFixture {
  moduleRef: TestingModule;
  config: AllConfig;
  /** A new organization, as the CLI acts for it. */
  newOrg(): Promise<OrgContext>;
  /** The core's row as stored (status, name, current job, taste, error). */
  coreRow(id: string): Promise<Record<string, unknown> | undefined>;
  /** The storage keys of the core's images, in position order. */
  imageKeys(coreId: string): Promise<string[]>;
  close(): Promise<void>;
}

let counter = 0;

/** Compiles and starts the cores module with the rest of the application left out. */
export async function startCoresModule(env: Record<string, string> = {}): Promise<CoresModuleFixture> {
  counter += 1;
  const config = buildConfig(
    validateEnv({
      ...process.env,
      STORAGE_DIR: mkdtempSync(join(tmpdir(), 'taste-cores-module-')),
      LOG_LEVEL: 'silent',
      QUEUE_PREFIX: `test-cores-module-${process.pid}-${counter}`,
      ...env,
    }),
  );
  const moduleRef = await Test.createTestingModule({
    imports: [
      AppConfigModule.forRoot(config),
      MetricsModule.forRoot({ http: false }),
      DatabaseModule,
      RedisModule,
      AuthCoreModule,
      CoresModule,
    ],
  }).compile();
  moduleRef.useLogger(false);
  await moduleRef.init();
  const keys = moduleRef.get(ApiKeysService);
  const query = (sql: string, params: unknown[]): Promise<Record<string, unknown>[]> =>
    moduleRef.get(DataSource).query(sql, params);
  return {
    moduleRef,
    config,
    newOrg: async () => {
      const org = await moduleRef
        .get(OrganizationsService)
        .create(`Cores module ${process.pid}-${counter}-${Date.now()}`);
      return keys.cliContext(org.id);
    },
    coreRow: async (id) =>
      (
        await query(
          'SELECT status, name, current_job_id AS "currentJobId", taste, error FROM cores WHERE id = $1',
          [id],
        )
      )[0],
    imageKeys: async (coreId) =>
      (await query('SELECT storage_key FROM core_images WHERE core_id = $1 ORDER BY position', [coreId])).map(
        (r) => r.storage_key as string,
      ),
    close: () => moduleRef.close(),
  };
}

/** The module fixture with the two services under test and a red PNG, set once `beforeAll` has run. */
export interface CoresModuleSuite {
  m: CoresModuleFixture;
  cores: CoresService;
  generation: CoreGenerationService;
  red: string;
}

/** Registers the setup and teardown of a service-level cores suite (call it inside a `describe`). */
export function useCoresModule(): CoresModuleSuite {
  const s = {} as CoresModuleSuite;
  beforeAll(async () => {
    s.m = await startCoresModule();
    s.cores = s.m.moduleRef.get(CoresService);
    s.generation = s.m.moduleRef.get(CoreGenerationService);
    s.red = await colourPng('#c8202f');
  });
  afterAll(() => s.m.close());
  return s;
}
