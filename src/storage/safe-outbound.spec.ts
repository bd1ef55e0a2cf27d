import { OutboundRejectedError, SafeOutbound } from './safe-outbound';

/** The registration-time half of the outbound policy (the connector's half is covered by ingestion specs). */
describe('SafeOutbound.checkResolved', () => {
  const outbound = (addresses: Record<string, string[]>, allowedHosts: string[] = []) =>
    new SafeOutbound({ allowedHosts, timeoutMs: 1000 }, (host) =>
      host in addresses
        ? Promise.resolve(addresses[host])
        : Promise.reject(Object.assign(new Error('nx'), { code: 'ENOTFOUND' })),
    );

  it('accepts a host whose every address is public', async () => {
    const o = outbound({ 'hooks.example.com': ['93.184.216.34', '2606:2800:220:1:248:1893:25c8:1946'] });
    await expect(o.checkResolved(new URL('https://hooks.example.com/x'))).resolves.toBeUndefined();
    await o.close();
  });

  it('refuses a host with any private, loopback or metadata address', async () => {
    const o = outbound({
      rebind: ['93.184.216.34', '10.0.0.5'],
      meta: ['169.254.169.254'],
      mapped: ['::ffff:127.0.0.1'],
    });
    for (const host of ['rebind', 'meta', 'mapped']) {
      const err = await o.checkResolved(new URL(`https://${host}/x`)).catch((e: unknown) => e);
      expect((err as Error).message).toMatch(/resolves to an address that is not public/);
      // Which address it was stays out of the message: the caller would learn the internal DNS.
      expect((err as Error).message).not.toMatch(/10\.0\.0\.5|169\.254|127\.0\.0\.1/);
    }
    await o.close();
  });

  it('names an unknown host, and lets allow-listed hosts resolve anywhere', async () => {
    const o = outbound({ 'hooks.internal': ['10.1.2.3'] }, ['hooks.internal']);
    const err = await o.checkResolved(new URL('https://nowhere.example/x')).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(OutboundRejectedError);
    expect((err as Error).message).toBe('host not found');
    await expect(o.checkResolved(new URL('https://hooks.internal:8443/x'))).resolves.toBeUndefined();
    expect(o.checkUrl('https://hooks.internal:8443/x').port).toBe('8443');
    expect(() => o.checkUrl('https://other.internal:8443/x')).toThrow(/port 8443 is not allowed/);
    await o.close();
  });
});
