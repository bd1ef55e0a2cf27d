import { Client } from 'pg';
import Redis from 'ioredis';
import { DataSource } from 'typeorm';
import { dataSourceOptions } from '../src/database/data-source';

/**
 * Once per test run: a fresh database (migrations applied once) and an empty Redis database.
 * The URLs are exported through the environment to every test worker.
 */
export default async function globalSetup(): Promise<void> {
  const admin = process.env.TEST_PG_ADMIN_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
  const dbName = process.env.TEST_DB_NAME ?? 'taste_test';
  const client = new Client({ connectionString: admin });
  await client.connect();
  await client.query(`DROP DATABASE IF EXISTS "${dbName}" WITH (FORCE)`);
  await client.query(`CREATE DATABASE "${dbName}"`);
  await client.end();

  const url = new URL(admin);
  url.pathname = `/${dbName}`;
  process.env.DATABASE_URL = url.toString();
  const ds = new DataSource(dataSourceOptions(process.env.DATABASE_URL));
  await ds.initialize();
  await ds.runMigrations({ transaction: 'each' });
  await ds.destroy();

  process.env.REDIS_URL = process.env.TEST_REDIS_URL ?? 'redis://127.0.0.1:6379/1';
  const redis = new Redis(process.env.REDIS_URL);
  await redis.flushdb();
  await redis.quit();
  process.env.DB_MIGRATIONS_RUN = 'false';
  process.env.LOG_LEVEL = process.env.LOG_LEVEL ?? 'silent';
  process.env.NODE_ENV = 'test';
  // Upkeep loops scan the whole shared test database: off unless a test turns them on for its app.
  process.env.RECONCILE_INTERVAL_MS = process.env.RECONCILE_INTERVAL_MS ?? '0';
  process.env.SWEEP_INTERVAL_MS = process.env.SWEEP_INTERVAL_MS ?? '0';
}
