import { OrgContext } from './org-context';

/** Redis pub/sub channel on which every revocation is announced (message: the key id). */
export const KEY_REVOKED_CHANNEL = 'auth:api-key-revoked';

/** Entries beyond this are not added (a bound, not an eviction policy: keys are few). */
const MAX_ENTRIES = 10_000;

/**
 * The in-process cache of resolved API keys (key hash → organization context), see
 * docs/decisions/0026-lean-request-path.md. It serves entries only while it is `live`, i.e. while this
 * process is subscribed to {@link KEY_REVOKED_CHANNEL}: a revocation in any process evicts the key here
 * at once. Losing the subscription turns the cache off and empties it (a revocation may be missed while
 * disconnected); it comes back empty once subscribed again.
 *
 * A lookup that raced with an eviction must not store its (possibly stale) row: `epoch` counts
 * evictions, and {@link store} only stores when no eviction happened since {@link begin}.
 */
export class ApiKeyCache {
  private readonly entries = new Map<string, { ctx: OrgContext; expires: number }>();
  private live = false;
  private epoch = 0;

  constructor(private readonly ttlMs: number) {}

  get enabled(): boolean {
    return this.live && this.ttlMs > 0;
  }

  get(keyHash: string): OrgContext | undefined {
    if (!this.enabled) return undefined;
    const hit = this.entries.get(keyHash);
    if (!hit) return undefined;
    if (hit.expires > Date.now()) return hit.ctx;
    this.entries.delete(keyHash);
    return undefined;
  }

  /** Call before reading a key row; pass the result to {@link store}. */
  begin(): number {
    return this.epoch;
  }

  store(keyHash: string, ctx: OrgContext, since: number): void {
    if (!this.enabled || since !== this.epoch || this.entries.size >= MAX_ENTRIES) return;
    this.entries.set(keyHash, { ctx, expires: Date.now() + this.ttlMs });
  }

  /** Evicts every entry of the key (a revocation announced by any process). */
  evictKey(keyId: string): void {
    this.epoch += 1;
    for (const [hash, entry] of this.entries) if (entry.ctx.apiKeyId === keyId) this.entries.delete(hash);
  }

  /** On when subscribed to revocations, off when the subscription is lost; empties itself either way. */
  setLive(live: boolean): void {
    this.epoch += 1;
    this.live = live;
    this.entries.clear();
  }
}
