import { MigrationInterface, QueryRunner } from 'typeorm';

export class CreateWebhooksAndIdempotencyKeys1795463522654 implements MigrationInterface {
  name = 'CreateWebhooksAndIdempotencyKeys1795463522654';

  public async up(q: QueryRunner): Promise<void> {
    await q.query(`CREATE TABLE "webhook_endpoints" (
      "id" uuid NOT NULL DEFAULT gen_random_uuid(),
      "org_id" uuid NOT NULL,
      "url" character varying(2048) NOT NULL,
      "events" text array NOT NULL,
      "description" character varying(255),
      "secret" character varying(128) NOT NULL,
      "created_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(),
      CONSTRAINT "PK_webhook_endpoints" PRIMARY KEY ("id"),
      CONSTRAINT "FK_webhook_endpoints_org" FOREIGN KEY ("org_id") REFERENCES "organizations"("id") ON DELETE CASCADE)`);
    await q.query(
      `CREATE INDEX "idx_webhook_endpoints_org_created" ON "webhook_endpoints" ("org_id", "created_at")`,
    );
    await q.query(`CREATE TABLE "webhook_deliveries" (
      "id" uuid NOT NULL DEFAULT gen_random_uuid(),
      "org_id" uuid NOT NULL,
      "webhook_id" uuid NOT NULL,
      "event" character varying(32) NOT NULL,
      "payload" text NOT NULL,
      "state" character varying(16) NOT NULL DEFAULT 'pending',
      "created_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(),
      CONSTRAINT "PK_webhook_deliveries" PRIMARY KEY ("id"),
      CONSTRAINT "FK_webhook_deliveries_endpoint" FOREIGN KEY ("webhook_id") REFERENCES "webhook_endpoints"("id") ON DELETE CASCADE,
      CONSTRAINT "CHK_webhook_deliveries_state" CHECK ("state" IN ('pending', 'succeeded', 'failed')))`);
    await q.query(
      `CREATE INDEX "idx_webhook_deliveries_pending" ON "webhook_deliveries" ("state", "created_at")`,
    );
    await q.query(`CREATE TABLE "webhook_attempts" (
      "id" uuid NOT NULL DEFAULT gen_random_uuid(),
      "org_id" uuid NOT NULL,
      "webhook_id" uuid NOT NULL,
      "delivery_id" uuid NOT NULL,
      "event" character varying(32) NOT NULL,
      "attempt" integer NOT NULL,
      "at" TIMESTAMP WITH TIME ZONE NOT NULL,
      "http_status" integer,
      "error" character varying(255),
      "succeeded" boolean NOT NULL,
      CONSTRAINT "PK_webhook_attempts" PRIMARY KEY ("id"),
      CONSTRAINT "FK_webhook_attempts_delivery" FOREIGN KEY ("delivery_id") REFERENCES "webhook_deliveries"("id") ON DELETE CASCADE)`);
    await q.query(`CREATE INDEX "idx_webhook_attempts_delivery" ON "webhook_attempts" ("delivery_id")`);
    await q.query(
      `CREATE INDEX "idx_webhook_attempts_endpoint_at" ON "webhook_attempts" ("webhook_id", "at")`,
    );
    await q.query(`CREATE TABLE "idempotency_keys" (
      "org_id" uuid NOT NULL,
      "key" character varying(255) NOT NULL,
      "scope" character varying(32) NOT NULL,
      "request_hash" character(64) NOT NULL,
      "state" character varying(16) NOT NULL,
      "response_status" integer,
      "response_body" jsonb,
      "created_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(),
      "expires_at" TIMESTAMP WITH TIME ZONE NOT NULL,
      CONSTRAINT "PK_idempotency_keys" PRIMARY KEY ("org_id", "key"),
      CONSTRAINT "FK_idempotency_keys_org" FOREIGN KEY ("org_id") REFERENCES "organizations"("id") ON DELETE CASCADE,
      CONSTRAINT "CHK_idempotency_keys_state" CHECK ("state" IN ('processing', 'completed')))`);
    await q.query(`CREATE INDEX "idx_idempotency_keys_expires" ON "idempotency_keys" ("expires_at")`);
  }

  public async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP TABLE "idempotency_keys"`);
    await q.query(`DROP TABLE "webhook_attempts"`);
    await q.query(`DROP TABLE "webhook_deliveries"`);
    await q.query(`DROP TABLE "webhook_endpoints"`);
  }
}
