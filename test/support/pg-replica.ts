import { execFileSync } from 'node:child_process';
import { chownSync, existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from 'pg';
import { freePort } from './app';

/** A primary PostgreSQL cluster and its physical streaming replica, both on loopback, for one test file. */
export interface ReplicatedCluster {
  /** `postgres://postgres@127.0.0.1:<port>/<db>` of the primary. */
  primaryUrl(db: string): string;
  replicaUrl(db: string): string;
  /** Waits until the replica has replayed everything the primary has written so far. */
  catchUp(timeoutMs?: number): Promise<void>;
  /** Stops both clusters and removes their directories. */
  stop(): void;
}

function postgresBin(): string {
  const root = '/usr/lib/postgresql';
  const versions = existsSync(root) ? readdirSync(root).sort((a, b) => Number(b) - Number(a)) : [];
  const bin = versions.map((v) => join(root, v, 'bin')).find((dir) => existsSync(join(dir, 'initdb')));
  if (!bin) throw new Error(`no PostgreSQL server binaries under ${root}`);
  return bin;
}

/**
 * initdb refuses to run as root: as root, the clusters belong to the `postgres` OS user and every server
 * command runs through `runuser`.
 */
function runner(): { run: (cmd: string, args: string[]) => void; own: (dir: string) => void } {
  const asRoot = process.getuid?.() === 0;
  const uid = asRoot ? Number(execFileSync('id', ['-u', 'postgres'], { encoding: 'utf8' })) : -1;
  const gid = asRoot ? Number(execFileSync('id', ['-g', 'postgres'], { encoding: 'utf8' })) : -1;
  return {
    run: (cmd, args) => {
      const [file, argv] = asRoot ? ['runuser', ['-u', 'postgres', '--', cmd, ...args]] : [cmd, args];
      execFileSync(file, argv, { stdio: ['ignore', 'ignore', 'pipe'], timeout: 120000 });
    },
    own: (dir) => {
      if (asRoot) chownSync(dir, uid, gid);
    },
  };
}

/**
 * Starts a fresh primary (`initdb`, trust authentication on loopback, fsync off: test data only) and a
 * replica of it made with `pg_basebackup -R` (streaming replication, hot standby: read-only queries).
 * `databases` are created on the primary before the replica is taken.
 */
export async function startReplicatedCluster(databases: string[]): Promise<ReplicatedCluster> {
  const bin = postgresBin();
  const { run, own } = runner();
  const dir = mkdtempSync(join(tmpdir(), 'taste-pgrepl-'));
  own(dir);
  const primaryDir = join(dir, 'primary');
  const replicaDir = join(dir, 'replica');
  const [primaryPort, replicaPort] = [await freePort(), await freePort()];
  const start = (dataDir: string, port: number) =>
    run(join(bin, 'pg_ctl'), [
      '-D',
      dataDir,
      '-l',
      `${dataDir}.log`,
      '-w',
      '-t',
      '60',
      '-o',
      `-p ${port} -k ${dir} -c listen_addresses=127.0.0.1 -c fsync=off -c full_page_writes=off`,
      'start',
    ]);
  const started: string[] = [];
  const stop = () => {
    for (const dataDir of started.reverse()) {
      try {
        run(join(bin, 'pg_ctl'), ['-D', dataDir, '-m', 'immediate', '-w', 'stop']);
      } catch {
        // already stopped
      }
    }
    rmSync(dir, { recursive: true, force: true });
  };
  try {
    run(join(bin, 'initdb'), ['-D', primaryDir, '-U', 'postgres', '--auth=trust', '-E', 'UTF8', '--no-sync']);
    start(primaryDir, primaryPort);
    started.push(primaryDir);
    const admin = new Client({ connectionString: `postgres://postgres@127.0.0.1:${primaryPort}/postgres` });
    await admin.connect();
    for (const db of databases) await admin.query(`CREATE DATABASE "${db}"`);
    await admin.end();
    run(join(bin, 'pg_basebackup'), [
      '-h',
      '127.0.0.1',
      '-p',
      String(primaryPort),
      '-U',
      'postgres',
      '-D',
      replicaDir,
      '-R',
      '-X',
      'stream',
      '--no-sync',
      // Start at once: the default spread checkpoint waits for most of checkpoint_timeout.
      '--checkpoint=fast',
    ]);
    start(replicaDir, replicaPort);
    started.push(replicaDir);
  } catch (err) {
    stop();
    throw err;
  }
  const url = (port: number, db: string) => `postgres://postgres@127.0.0.1:${port}/${db}`;
  return {
    primaryUrl: (db) => url(primaryPort, db),
    replicaUrl: (db) => url(replicaPort, db),
    async catchUp(timeoutMs = 20000) {
      const primary = new Client({ connectionString: url(primaryPort, 'postgres') });
      const replica = new Client({ connectionString: url(replicaPort, 'postgres') });
      await primary.connect();
      await replica.connect();
      try {
        // The insert position, not the write position: a commit made with synchronous_commit off (catalogue
        // imports) may not be written out yet, and the replica must still wait for it.
        const [{ lsn }] = (await primary.query('SELECT pg_current_wal_insert_lsn()::text AS lsn')).rows;
        const deadline = Date.now() + timeoutMs;
        for (;;) {
          const { rows } = await replica.query('SELECT pg_last_wal_replay_lsn() >= $1::pg_lsn AS done', [
            lsn,
          ]);
          if (rows[0].done) return;
          if (Date.now() > deadline) throw new Error(`replica did not reach ${lsn} in ${timeoutMs} ms`);
          await new Promise((r) => setTimeout(r, 50));
        }
      } finally {
        await primary.end();
        await replica.end();
      }
    },
    stop,
  };
}
