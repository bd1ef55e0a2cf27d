import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Indexes for the background upkeep (docs/decisions/0019, 0020): the reconciler reads the jobs still
 * `processing` (a partial index keeps that read small whatever the history), and the orphan sweeper
 * asks which storage keys a core image references.
 */
export class UpkeepIndexes1795463663188 implements MigrationInterface {
  name = 'UpkeepIndexes1795463663188';

  public async up(q: QueryRunner): Promise<void> {
    await q.query(
      `CREATE INDEX "idx_jobs_processing" ON "jobs" ("created_at") WHERE "status" = 'processing'`,
    );
    await q.query(`CREATE INDEX "idx_core_images_storage_key" ON "core_images" ("storage_key")`);
  }

  public async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP INDEX "idx_core_images_storage_key"`);
    await q.query(`DROP INDEX "idx_jobs_processing"`);
  }
}
