import { Client as MinioClient } from 'minio';
import { Client } from 'pg';
import { cliAsync } from '../support/cli';
import { startS3Server } from '../support/s3-server';

/** The deploy-step commands of the admin CLI (compose's `migrate` and `storage-init`, the Kubernetes Job). */
describe('admin CLI deploy commands (e2e, spawned process)', () => {
  const admin = () => {
    const url = new URL(process.env.DATABASE_URL!);
    url.pathname = '/postgres';
    return new Client({ connectionString: url.toString() });
  };

  it('migration:run applies the pending migrations on an empty database, then none', async () => {
    const name = `taste_migrate_${process.pid}_${Date.now()}`;
    const url = new URL(process.env.DATABASE_URL!);
    url.pathname = `/${name}`;
    const pg = admin();
    await pg.connect();
    await pg.query(`CREATE DATABASE "${name}"`);
    try {
      // With the default DB_MIGRATIONS_RUN=true, as an operator runs it: the connection applied them
      // first and the command printed `{ "applied": [] }`.
      const env = { DATABASE_URL: url.toString(), DB_MIGRATIONS_RUN: 'true' };
      const first = await cliAsync(env, 'migration:run');
      expect(first.stderr).toBe('');
      expect(first.code).toBe(0);
      const { applied } = JSON.parse(first.stdout) as { applied: string[] };
      expect(applied.length).toBeGreaterThan(3);
      expect(applied[0]).toMatch(/^CreateOrganizationsKeysAudit\d{13}$/);

      const db = new Client({ connectionString: url.toString() });
      await db.connect();
      const { rows } = await db.query('SELECT count(*)::int AS n FROM typeorm_migrations');
      await db.end();
      expect(rows[0].n).toBe(applied.length);

      const second = await cliAsync(env, 'migration:run');
      expect(second.code).toBe(0);
      expect(JSON.parse(second.stdout)).toEqual({ applied: [] });
    } finally {
      await pg.query(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`);
      await pg.end();
    }
  }, 120000);

  it('storage:init creates the S3 bucket when it is missing, and fails clearly when the server is down', async () => {
    const s3 = await startS3Server();
    const env = {
      STORAGE_DRIVER: 's3',
      S3_ENDPOINT: s3.endpoint,
      S3_BUCKET: s3.bucket,
      S3_ACCESS_KEY: s3.accessKey,
      S3_SECRET_KEY: s3.secretKey,
    };
    const { hostname, port } = new URL(s3.endpoint);
    const client = new MinioClient({
      endPoint: hostname,
      port: Number(port),
      useSSL: false,
      accessKey: s3.accessKey,
      secretKey: s3.secretKey,
      pathStyle: true,
    });
    try {
      expect(await client.bucketExists(s3.bucket)).toBe(false);
      const res = await cliAsync(env, 'storage:init');
      expect(res.stderr).toBe('');
      expect(res.code).toBe(0);
      expect(JSON.parse(res.stdout)).toEqual({ driver: 's3', ready: true });
      expect(await client.bucketExists(s3.bucket)).toBe(true);
    } finally {
      await s3.close();
    }
    const down = await cliAsync(env, 'storage:init');
    expect(down.code).not.toBe(0);
    expect(down.stdout).toBe('');
    expect(down.stderr).toMatch(/^error: /);
  }, 120000);
});
