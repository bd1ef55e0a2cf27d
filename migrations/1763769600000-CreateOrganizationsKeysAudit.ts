import { MigrationInterface, QueryRunner } from 'typeorm';

export class CreateOrganizationsKeysAudit1763769600000 implements MigrationInterface {
  name = 'CreateOrganizationsKeysAudit1763769600000';

  public async up(q: QueryRunner): Promise<void> {
    await q.query(`CREATE TABLE "organizations" (
      "id" uuid NOT NULL DEFAULT gen_random_uuid(),
      "name" character varying(255) NOT NULL,
      "created_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(),
      CONSTRAINT "PK_organizations" PRIMARY KEY ("id"))`);
    await q.query(`CREATE TABLE "api_keys" (
      "id" uuid NOT NULL DEFAULT gen_random_uuid(),
      "org_id" uuid NOT NULL,
      "name" character varying(100) NOT NULL,
      "prefix" character varying(16) NOT NULL,
      "key_hash" character(64) NOT NULL,
      "created_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(),
      "last_used_at" TIMESTAMP WITH TIME ZONE,
      "revoked_at" TIMESTAMP WITH TIME ZONE,
      CONSTRAINT "PK_api_keys" PRIMARY KEY ("id"),
      CONSTRAINT "FK_api_keys_org" FOREIGN KEY ("org_id") REFERENCES "organizations"("id") ON DELETE CASCADE)`);
    await q.query(`CREATE UNIQUE INDEX "uq_api_keys_hash" ON "api_keys" ("key_hash")`);
    await q.query(`CREATE INDEX "idx_api_keys_org" ON "api_keys" ("org_id")`);
    await q.query(`CREATE TABLE "audit_events" (
      "id" uuid NOT NULL DEFAULT gen_random_uuid(),
      "org_id" uuid NOT NULL,
      "actor_type" character varying(16) NOT NULL,
      "actor_id" character varying(64),
      "actor_label" character varying(255) NOT NULL,
      "action" character varying(64) NOT NULL,
      "target_type" character varying(32),
      "target_id" character varying(64),
      "metadata" jsonb NOT NULL DEFAULT '{}'::jsonb,
      "created_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(),
      CONSTRAINT "PK_audit_events" PRIMARY KEY ("id"),
      CONSTRAINT "FK_audit_events_org" FOREIGN KEY ("org_id") REFERENCES "organizations"("id") ON DELETE CASCADE)`);
    await q.query(`CREATE INDEX "idx_audit_events_org_time" ON "audit_events" ("org_id", "created_at")`);
    await q.query(`CREATE FUNCTION audit_events_append_only() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN RAISE EXCEPTION 'audit_events is append-only'; END $$`);
    await q.query(`CREATE TRIGGER "trg_audit_events_no_update" BEFORE UPDATE ON "audit_events"
      FOR EACH ROW EXECUTE FUNCTION audit_events_append_only()`);
  }

  public async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP TABLE "audit_events"`);
    await q.query(`DROP FUNCTION audit_events_append_only()`);
    await q.query(`DROP TABLE "api_keys"`);
    await q.query(`DROP TABLE "organizations"`);
  }
}
