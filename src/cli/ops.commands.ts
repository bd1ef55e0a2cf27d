import { ConfigService } from '@nestjs/config';
import { InjectDataSource } from '@nestjs/typeorm';
import { Command, CommandRunner } from 'nest-commander';
import { DataSource } from 'typeorm';
import type { AllConfig } from '../config/configuration';
import { ImageStore } from '../storage';
import { printJson } from './cli-output';

/**
 * The deploy step of a multi-process installation (compose's `migrate` service, the Kubernetes Job):
 * runs the pending migrations, one transaction each, while the apps run with `DB_MIGRATIONS_RUN=false`.
 */
@Command({ name: 'migration:run', description: 'Run pending migrations: prints { applied: [names] }' })
export class MigrationRunCommand extends CommandRunner {
  constructor(@InjectDataSource() private readonly db: DataSource) {
    super();
  }

  async run(): Promise<void> {
    const applied = await this.db.runMigrations({ transaction: 'each' });
    printJson({ applied: applied.map((m) => m.name) });
  }
}

/**
 * Makes the configured image store ready (the `s3` driver creates its bucket, with the read-only object
 * policy where the server supports one) and checks it answers: compose's one-shot bucket init.
 */
@Command({
  name: 'storage:init',
  description: 'Create the storage bucket if missing: prints { driver, ready }',
})
export class StorageInitCommand extends CommandRunner {
  constructor(
    private readonly store: ImageStore,
    private readonly config: ConfigService<AllConfig, true>,
  ) {
    super();
  }

  async run(): Promise<void> {
    await this.store.ping();
    printJson({ driver: this.config.get('storage', { infer: true }).driver, ready: true });
  }
}

export const OPS_COMMANDS = [MigrationRunCommand, StorageInitCommand];
