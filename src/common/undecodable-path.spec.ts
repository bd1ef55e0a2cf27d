import { escapeUndecodableSegments } from './undecodable-path';

describe('escapeUndecodableSegments', () => {
  it('leaves a path that decodes (or has no escapes) as it is, query included', () => {
    for (const url of ['/api/v1/org/cores/abc', '/api/v1/org/cores/a%20b?x=%ZZ', '/images/img/k%2Fv.png'])
      expect(escapeUndecodableSegments(url)).toBe(url);
  });

  it('escapes a segment that cannot be decoded, so it reaches the route as its literal text', () => {
    expect(escapeUndecodableSegments('/api/v1/org/cores/%ZZ')).toBe('/api/v1/org/cores/%25ZZ');
    expect(escapeUndecodableSegments('/api/v1/org/cores/%C3%28/products?q=1')).toBe(
      '/api/v1/org/cores/%25C3%2528/products?q=1',
    );
    expect(decodeURIComponent(escapeUndecodableSegments('/x/%E0%A4%A'))).toBe('/x/%E0%A4%A');
  });
});
