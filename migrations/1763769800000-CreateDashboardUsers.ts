import { MigrationInterface, QueryRunner } from 'typeorm';

export class CreateDashboardUsers1763769800000 implements MigrationInterface {
  name = 'CreateDashboardUsers1763769800000';

  public async up(q: QueryRunner): Promise<void> {
    await q.query(`CREATE TABLE "dashboard_users" (
      "id" uuid NOT NULL DEFAULT gen_random_uuid(),
      "org_id" uuid NOT NULL,
      "email" character varying(320) NOT NULL,
      "password_hash" character varying(255) NOT NULL,
      "role" character varying(16) NOT NULL DEFAULT 'member',
      "created_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(),
      "last_sign_in_at" TIMESTAMP WITH TIME ZONE,
      CONSTRAINT "PK_dashboard_users" PRIMARY KEY ("id"),
      CONSTRAINT "FK_dashboard_users_org" FOREIGN KEY ("org_id") REFERENCES "organizations"("id") ON DELETE CASCADE)`);
    await q.query(`CREATE UNIQUE INDEX "uq_dashboard_users_email" ON "dashboard_users" ("email")`);
    await q.query(`CREATE INDEX "idx_dashboard_users_org" ON "dashboard_users" ("org_id")`);
  }

  public async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP TABLE "dashboard_users"`);
  }
}
