import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * An idempotent replay is the first response byte for byte: `response_body` becomes `json`, which keeps
 * the text as written, where `jsonb` reordered its keys (`{"jobId":..,"coreId":..,"status":202}` for a
 * first answer that began with `status`). Rows stored before keep jsonb's order until they expire (24 h).
 */
export class IdempotentReplayBytes1796300000000 implements MigrationInterface {
  name = 'IdempotentReplayBytes1796300000000';

  public async up(q: QueryRunner): Promise<void> {
    await q.query(
      `ALTER TABLE "idempotency_keys" ALTER COLUMN "response_body" TYPE json USING "response_body"::json`,
    );
  }

  public async down(q: QueryRunner): Promise<void> {
    await q.query(
      `ALTER TABLE "idempotency_keys" ALTER COLUMN "response_body" TYPE jsonb USING "response_body"::jsonb`,
    );
  }
}
