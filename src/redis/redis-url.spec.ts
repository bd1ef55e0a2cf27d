import { ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Redis from 'ioredis';
import { freePort } from '../../test/support/app';
import { loadConfig } from '../config/configuration';
import { createRedisClient, redisConnectionOptions } from './redis-url';

/** Starts `redis-server` with `args` and waits until it answers PING on `port`. */
async function startRedis(port: number, args: string[]): Promise<ChildProcess> {
  const child = spawn('redis-server', args, { stdio: 'ignore' });
  const probe = new Redis({ port, lazyConnect: true, maxRetriesPerRequest: 0, retryStrategy: () => null });
  probe.on('error', () => undefined); // refused until the server listens
  try {
    for (let i = 0; i < 100; i++) {
      try {
        await probe.connect();
        await probe.ping();
        return child;
      } catch {
        probe.disconnect();
        await new Promise((r) => setTimeout(r, 100));
      }
    }
  } finally {
    probe.disconnect();
  }
  child.kill();
  throw new Error(`redis-server on ${port} did not start`);
}

describe('REDIS_URL parsing', () => {
  it('leaves a single-server URL to ioredis', () => {
    expect(redisConnectionOptions('redis://:secret@redis_cache:6379/2')).toEqual({
      url: 'redis://:secret@redis_cache:6379/2',
    });
    expect(redisConnectionOptions('rediss://cache.example.com:6380')).toEqual({
      url: 'rediss://cache.example.com:6380',
    });
  });

  it('turns a Sentinel URL into ioredis sentinel options', () => {
    expect(
      redisConnectionOptions(
        'redis-sentinel://app:p%40ss@sentinel-a:26379,sentinel-b:26380,[::1]/taste-primary?db=3&sentinelPassword=s3nt',
      ),
    ).toEqual({
      sentinels: [
        { host: 'sentinel-a', port: 26379 },
        { host: 'sentinel-b', port: 26380 },
        { host: '::1', port: 26379 },
      ],
      name: 'taste-primary',
      username: 'app',
      password: 'p@ss',
      db: 3,
      sentinelPassword: 's3nt',
    });
  });

  it('defaults the port to 26379 and the master name to mymaster; a password alone is the data nodes’', () => {
    expect(redisConnectionOptions('redis-sentinel://:secret@10.0.0.5')).toEqual({
      sentinels: [{ host: '10.0.0.5', port: 26379 }],
      name: 'mymaster',
      password: 'secret',
    });
    expect(redisConnectionOptions('rediss-sentinel://s1:26379/m')).toEqual({
      sentinels: [{ host: 's1', port: 26379 }],
      name: 'm',
      tls: {},
      enableTLSForSentinelMode: true,
    });
  });

  it.each([
    'mysql://db:3306',
    'redis-sentinel://s1:notaport/m',
    'redis-sentinel://s1:26379,,s2/m',
    'redis-sentinel://s1/m?db=x',
    'not a url',
  ])('refuses %s', (url) => {
    expect(() => redisConnectionOptions(url)).toThrow();
  });

  it('connects through a real Redis given as a single-server URL', async () => {
    const client = createRedisClient(loadConfig().redis.url, {
      lazyConnect: true,
      maxRetriesPerRequest: 1,
    });
    try {
      expect(client).toBeInstanceOf(Redis);
      expect(await client.ping()).toBe('PONG');
    } finally {
      client.disconnect();
    }
  });

  it('reaches the primary that a real Redis Sentinel names', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'taste-sentinel-'));
    const dataPort = await freePort();
    const sentinelPort = await freePort();
    const processes: ChildProcess[] = [];
    const client = createRedisClient(`redis-sentinel://127.0.0.1:${sentinelPort}/taste-primary?db=2`, {
      maxRetriesPerRequest: 1,
      lazyConnect: true,
    });
    const direct = new Redis({ port: dataPort, db: 2, lazyConnect: true });
    try {
      processes.push(
        await startRedis(dataPort, [
          '--port',
          String(dataPort),
          '--bind',
          '127.0.0.1',
          '--save',
          '',
          '--appendonly',
          'no',
        ]),
      );
      const conf = join(dir, 'sentinel.conf');
      writeFileSync(
        conf,
        `port ${sentinelPort}\nbind 127.0.0.1\nsentinel monitor taste-primary 127.0.0.1 ${dataPort} 1\n`,
      );
      processes.push(await startRedis(sentinelPort, [conf, '--sentinel']));

      await client.set('sentinel-probe', 'via sentinel');
      expect(await direct.get('sentinel-probe')).toBe('via sentinel');
    } finally {
      client.disconnect();
      direct.disconnect();
      for (const p of processes) p.kill();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
