import { isIpLiteral, isPublicAddress, normalizeHost } from './address-policy';

describe('isPublicAddress', () => {
  it.each([
    '10.0.0.1',
    '10.255.255.255',
    '172.16.0.1',
    '172.31.255.254',
    '192.168.1.1',
    '169.254.169.254',
    '100.64.0.1',
    '100.127.255.254',
    '127.0.0.1',
    '127.1.2.3',
    '0.0.0.0',
    '224.0.0.1',
    '239.255.255.250',
    '255.255.255.255',
    '192.0.2.1',
    '198.18.0.1',
    '240.0.0.1',
    '::',
    '::1',
    'fc00::1',
    'fd12:3456:789a::1',
    'fe80::1',
    'ff02::1',
    '::ffff:127.0.0.1',
    '::ffff:169.254.169.254',
    '::ffff:10.0.0.1',
    '[::1]',
    '64:ff9b::a9fe:a9fe',
    '2002:a9fe:a9fe::1',
    '2001:db8::1',
    // IPv4-compatible (::/96), which ipaddr.js rates unicast: loopback and the metadata address.
    '::127.0.0.1',
    '::7f00:1',
    '::a9fe:a9fe',
    '[::8.8.8.8]',
  ])('blocks %s', (address) => {
    expect(isPublicAddress(address)).toBe(false);
  });

  it.each([
    '8.8.8.8',
    '1.1.1.1',
    '93.184.216.34',
    '2606:4700::1',
    '2a00:1450:4001:80b::200e',
    '::ffff:8.8.8.8',
  ])('allows %s', (address) => {
    expect(isPublicAddress(address)).toBe(true);
  });

  it.each(['', 'localhost', 'example.com', '127.1', '2130706433', '0x7f.1', '999.1.1.1', 'not an ip'])(
    'treats non-canonical or non-IP input %j as not public',
    (value) => {
      expect(isPublicAddress(value)).toBe(false);
    },
  );
});

describe('host helpers', () => {
  it('recognises literal IPs with or without brackets', () => {
    expect(isIpLiteral('127.0.0.1')).toBe(true);
    expect(isIpLiteral('[::1]')).toBe(true);
    expect(isIpLiteral('::ffff:7f00:1')).toBe(true);
    expect(isIpLiteral('localhost')).toBe(false);
  });

  it('normalises hosts for allow-list comparison', () => {
    expect(normalizeHost('LocalHost.')).toBe('localhost');
    expect(normalizeHost('[::1]')).toBe('::1');
  });
});
