import { ApiKeyCache } from './api-key-cache';
import { OrgContext } from './org-context';

const ctx = (keyId: string): OrgContext => ({
  orgId: 'org',
  orgName: 'Org',
  actor: { type: 'api_key', id: keyId, label: keyId },
  apiKeyId: keyId,
});

describe('ApiKeyCache', () => {
  it('serves nothing until subscribed to revocations, and nothing after the subscription is lost', () => {
    const cache = new ApiKeyCache(60_000);
    cache.store('h1', ctx('k1'), cache.begin());
    expect(cache.get('h1')).toBeUndefined();
    cache.setLive(true);
    cache.store('h1', ctx('k1'), cache.begin());
    expect(cache.get('h1')?.apiKeyId).toBe('k1');
    cache.setLive(false);
    expect(cache.get('h1')).toBeUndefined();
    cache.setLive(true);
    expect(cache.get('h1')).toBeUndefined();
  });

  it('evicts every entry of a revoked key, and keeps the others', () => {
    const cache = new ApiKeyCache(60_000);
    cache.setLive(true);
    cache.store('h1', ctx('k1'), cache.begin());
    cache.store('h2', ctx('k2'), cache.begin());
    cache.evictKey('k1');
    expect(cache.get('h1')).toBeUndefined();
    expect(cache.get('h2')?.apiKeyId).toBe('k2');
  });

  it('does not store a row read while a revocation (or a lost subscription) happened', () => {
    const cache = new ApiKeyCache(60_000);
    cache.setLive(true);
    const before = cache.begin();
    cache.evictKey('some key');
    cache.store('h1', ctx('k1'), before);
    expect(cache.get('h1')).toBeUndefined();
    const again = cache.begin();
    cache.setLive(false);
    cache.setLive(true);
    cache.store('h1', ctx('k1'), again);
    expect(cache.get('h1')).toBeUndefined();
  });

  it('expires entries after the TTL, and is off with a TTL of 0', () => {
    const realNow = Date.now;
    try {
      let now = 1_000_000;
      Date.now = () => now;
      const cache = new ApiKeyCache(1000);
      cache.setLive(true);
      cache.store('h1', ctx('k1'), cache.begin());
      now += 999;
      expect(cache.get('h1')).toBeDefined();
      now += 2;
      expect(cache.get('h1')).toBeUndefined();
    } finally {
      Date.now = realNow;
    }
    const off = new ApiKeyCache(0);
    off.setLive(true);
    expect(off.enabled).toBe(false);
    off.store('h1', ctx('k1'), off.begin());
    expect(off.get('h1')).toBeUndefined();
  });
});
