import { MigrationInterface, QueryRunner } from 'typeorm';

export class CreateCoresAndJobs1763769650000 implements MigrationInterface {
  name = 'CreateCoresAndJobs1763769650000';

  public async up(q: QueryRunner): Promise<void> {
    await q.query(`CREATE TABLE "cores" (
      "id" uuid NOT NULL DEFAULT gen_random_uuid(),
      "org_id" uuid NOT NULL,
      "name" character varying(255) NOT NULL,
      "status" character varying(16) NOT NULL,
      "taste" text,
      "style_attributes" text array NOT NULL DEFAULT '{}',
      "tags" text array NOT NULL DEFAULT '{}',
      "palette" jsonb NOT NULL DEFAULT '[]',
      "patterns" text array NOT NULL DEFAULT '{}',
      "error" text,
      "current_job_id" uuid,
      "search_text" text NOT NULL DEFAULT '',
      "created_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(),
      "updated_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(),
      CONSTRAINT "PK_cores" PRIMARY KEY ("id"),
      CONSTRAINT "FK_cores_org" FOREIGN KEY ("org_id") REFERENCES "organizations"("id") ON DELETE CASCADE,
      CONSTRAINT "CHK_cores_status" CHECK ("status" IN ('processing', 'ready', 'failed')))`);
    await q.query(`CREATE INDEX "idx_cores_org_created" ON "cores" ("org_id", "created_at")`);
    // Synonym-aware list search: the app writes search_text (name, tags, attributes, synonyms);
    // queries use the same expression, so this index serves them.
    await q.query(
      `CREATE INDEX "idx_cores_search" ON "cores" USING GIN (to_tsvector('english'::regconfig, "search_text"))`,
    );

    await q.query(`CREATE TABLE "core_images" (
      "id" uuid NOT NULL DEFAULT gen_random_uuid(),
      "core_id" uuid NOT NULL,
      "position" smallint NOT NULL,
      "storage_key" character varying(128) NOT NULL,
      "url" text NOT NULL,
      "caption" text,
      "content_type" character varying(64) NOT NULL,
      "bytes" integer NOT NULL,
      "width" integer NOT NULL,
      "height" integer NOT NULL,
      "sha256" character(64) NOT NULL,
      "created_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(),
      CONSTRAINT "PK_core_images" PRIMARY KEY ("id"),
      CONSTRAINT "FK_core_images_core" FOREIGN KEY ("core_id") REFERENCES "cores"("id") ON DELETE CASCADE)`);
    await q.query(`CREATE INDEX "idx_core_images_core" ON "core_images" ("core_id", "position")`);

    await q.query(`CREATE TABLE "jobs" (
      "id" uuid NOT NULL DEFAULT gen_random_uuid(),
      "org_id" uuid NOT NULL,
      "core_id" uuid NOT NULL,
      "status" character varying(16) NOT NULL,
      "error" text,
      "attempts" integer NOT NULL DEFAULT 0,
      "created_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(),
      "started_at" TIMESTAMP WITH TIME ZONE,
      "finished_at" TIMESTAMP WITH TIME ZONE,
      CONSTRAINT "PK_jobs" PRIMARY KEY ("id"),
      CONSTRAINT "FK_jobs_core" FOREIGN KEY ("core_id") REFERENCES "cores"("id") ON DELETE CASCADE,
      CONSTRAINT "CHK_jobs_status" CHECK ("status" IN ('processing', 'ready', 'failed')))`);
    await q.query(`CREATE INDEX "idx_jobs_core" ON "jobs" ("core_id", "created_at")`);
  }

  public async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP TABLE "jobs"`);
    await q.query(`DROP TABLE "core_images"`);
    await q.query(`DROP TABLE "cores"`);
  }
}
