import { SessionData, Store } from 'express-session';
import type Redis from 'ioredis';

type Callback<T = void> = (err?: unknown, value?: T) => void;

/**
 * A small express-session store on the shared ioredis client. (connect-redis 9 speaks the node-redis
 * API only: `set(key, value, { expiration })`, `mGet`, `scanIterator`.) Sessions expire with their cookie.
 */
export class RedisSessionStore extends Store {
  constructor(
    private readonly redis: Redis,
    private readonly prefix: string,
    private readonly defaultTtlSeconds: number,
  ) {
    super();
  }

  override get(sid: string, cb: Callback<SessionData | null>): void {
    this.redis
      .get(this.prefix + sid)
      .then((raw) => cb(undefined, raw ? (JSON.parse(raw) as SessionData) : null))
      .catch((err: unknown) => cb(err));
  }

  override set(sid: string, session: SessionData, cb?: Callback): void {
    this.redis
      .set(this.prefix + sid, JSON.stringify(session), 'EX', this.ttl(session))
      .then(() => cb?.())
      .catch((err: unknown) => cb?.(err));
  }

  override touch(sid: string, session: SessionData, cb?: Callback): void {
    this.redis
      .expire(this.prefix + sid, this.ttl(session))
      .then(() => cb?.())
      .catch((err: unknown) => cb?.(err));
  }

  override destroy(sid: string, cb?: Callback): void {
    this.redis
      .del(this.prefix + sid)
      .then(() => cb?.())
      .catch((err: unknown) => cb?.(err));
  }

  private ttl(session: SessionData): number {
    const expires = session.cookie?.expires;
    if (!expires) return this.defaultTtlSeconds;
    return Math.max(1, Math.ceil((new Date(expires).getTime() - Date.now()) / 1000));
  }
}
