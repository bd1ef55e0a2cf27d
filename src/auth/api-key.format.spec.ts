import {
  displayPrefix,
  generateApiKey,
  hashApiKey,
  isWellFormedApiKey,
  KEY_LENGTH,
  sameDigest,
} from './api-key.format';

describe('API key format', () => {
  it('generates keys with the prefix, the fixed length and a valid checksum', () => {
    const key = generateApiKey();
    expect(key).toMatch(/^tpk_[0-9A-Za-z]{38}$/);
    expect(key).toHaveLength(KEY_LENGTH);
    expect(isWellFormedApiKey(key)).toBe(true);
  });

  it('carries at least 160 bits of randomness (32 base62 characters) and does not repeat', () => {
    // Everything between the prefix and the 6-character checksum is random base62.
    expect((generateApiKey().length - 'tpk_'.length - 6) * Math.log2(62)).toBeGreaterThan(160);
    const keys = new Set(Array.from({ length: 2000 }, generateApiKey));
    expect(keys.size).toBe(2000);
  });

  it('uses every base62 character roughly uniformly', () => {
    const counts = new Map<string, number>();
    for (let i = 0; i < 2000; i += 1) {
      for (const ch of generateApiKey().slice(4, 36)) counts.set(ch, (counts.get(ch) ?? 0) + 1);
    }
    expect(counts.size).toBe(62);
    const expected = (2000 * 32) / 62;
    for (const n of counts.values()) expect(Math.abs(n - expected) / expected).toBeLessThan(0.2);
  });

  it('refuses a key with one character changed (checksum), a wrong prefix or length', () => {
    const key = generateApiKey();
    const i = 10;
    const swapped = key.slice(0, i) + (key[i] === 'a' ? 'b' : 'a') + key.slice(i + 1);
    expect(isWellFormedApiKey(swapped)).toBe(false);
    expect(isWellFormedApiKey('ghp_' + key.slice(4))).toBe(false);
    expect(isWellFormedApiKey(key + 'x')).toBe(false);
    expect(isWellFormedApiKey('')).toBe(false);
  });

  it('hashes with the pepper: same key and pepper give the same digest, another pepper does not', () => {
    const key = generateApiKey();
    const a = hashApiKey(key, 'pepper-1');
    expect(a).toMatch(/^[0-9a-f]{64}$/);
    expect(hashApiKey(key, 'pepper-1')).toBe(a);
    expect(hashApiKey(key, 'pepper-2')).not.toBe(a);
    expect(sameDigest(a, hashApiKey(key, 'pepper-1'))).toBe(true);
    expect(sameDigest(a, hashApiKey(key, 'pepper-2'))).toBe(false);
  });

  it('keeps a short display prefix only', () => {
    const key = generateApiKey();
    expect(displayPrefix(key)).toBe(key.slice(0, 12));
  });
});
