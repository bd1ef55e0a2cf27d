import Redis, { type RedisOptions } from 'ioredis';

/**
 * How the service reaches Redis, from `REDIS_URL`:
 * - `redis://[user:password@]host:port[/db]` or `rediss://...` (TLS): one server, read by ioredis itself;
 * - `redis-sentinel://[user:password@]host1:26379,host2:26379[/master-name][?db=N&sentinelPassword=P]`:
 *   Redis Sentinel. ioredis asks the sentinels for the current primary of `master-name` (default
 *   `mymaster`) and follows a failover. The user and password are the data nodes'; a sentinel password,
 *   when the sentinels require one, is the `sentinelPassword` query parameter.
 *   `rediss-sentinel://` does the same over TLS to the data nodes.
 */
export type RedisConnectionOptions = RedisOptions & { url?: string };

const SENTINEL_RE = /^(rediss?)-sentinel:\/\/(?:([^@/?#]*)@)?([^/?#]+)(?:\/([^?#]*))?(?:\?([^#]*))?$/;
const SENTINEL_PORT = 26379;

/** The options for `new Redis(...)` and BullMQ's `connection` for a `REDIS_URL`; throws on a bad URL. */
export function redisConnectionOptions(url: string): RedisConnectionOptions {
  const sentinel = SENTINEL_RE.exec(url);
  if (!sentinel) {
    const parsed = new URL(url);
    if (parsed.protocol !== 'redis:' && parsed.protocol !== 'rediss:') {
      throw new Error('must be a redis://, rediss://, redis-sentinel:// or rediss-sentinel:// URL');
    }
    return { url };
  }
  const [, scheme, auth, hostList, path, query] = sentinel;
  const sentinels = hostList.split(',').map((entry) => {
    // The WHATWG parser checks each host and port, brackets an IPv6 address and drops a default port.
    const host = new URL(`redis://${entry.trim()}`);
    if (host.hostname === '' || host.pathname !== '' || host.username !== '') {
      throw new Error(`bad sentinel address "${entry}"`);
    }
    return { host: host.hostname.replace(/^\[(.*)\]$/, '$1'), port: Number(host.port || SENTINEL_PORT) };
  });
  const params = new URLSearchParams(query ?? '');
  const options: RedisConnectionOptions = { sentinels, name: decodeURIComponent(path || 'mymaster') };
  if (auth !== undefined) {
    const colon = auth.indexOf(':');
    const username = decodeURIComponent(colon === -1 ? auth : auth.slice(0, colon));
    if (username) options.username = username;
    if (colon !== -1) options.password = decodeURIComponent(auth.slice(colon + 1));
  }
  const db = params.get('db');
  if (db !== null) {
    if (!/^\d+$/.test(db)) throw new Error(`bad db "${db}"`);
    options.db = Number(db);
  }
  const sentinelPassword = params.get('sentinelPassword');
  if (sentinelPassword !== null) options.sentinelPassword = sentinelPassword;
  if (scheme === 'rediss') Object.assign(options, { tls: {}, enableTLSForSentinelMode: true });
  return options;
}

/** A client for `REDIS_URL` (one server or through Sentinel), with `extra` client options. */
export function createRedisClient(url: string, extra: RedisOptions = {}): Redis {
  const { url: single, ...options } = redisConnectionOptions(url);
  return single ? new Redis(single, { ...options, ...extra }) : new Redis({ ...options, ...extra });
}
