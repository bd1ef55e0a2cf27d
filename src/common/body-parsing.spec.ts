import { acceptsLargeBody, jsonNestingExceeds } from './body-parsing';

describe('jsonNestingExceeds', () => {
  const deep = (n: number): Buffer => Buffer.from('['.repeat(n) + ']'.repeat(n));

  it('counts arrays and objects, and stops at the limit', () => {
    expect(jsonNestingExceeds(deep(3), 3)).toBe(false);
    expect(jsonNestingExceeds(deep(4), 3)).toBe(true);
    expect(jsonNestingExceeds(Buffer.from('{"a":{"b":[1]}}'), 3)).toBe(false);
    expect(jsonNestingExceeds(Buffer.from('{"a":{"b":[{}]}}'), 3)).toBe(true);
  });

  it('ignores brackets inside strings, escaped quotes included', () => {
    expect(jsonNestingExceeds(Buffer.from(`{"a":"[[[[{{{{"}`), 1)).toBe(false);
    expect(jsonNestingExceeds(Buffer.from(`{"a":"\\"[[[[\\\\"}`), 1)).toBe(false);
    expect(jsonNestingExceeds(Buffer.from(`{"a":"\\\\",  "b":[[]]}`), 2)).toBe(true);
  });

  it('leaves malformed text to the parser', () => {
    expect(jsonNestingExceeds(Buffer.from('{"a":"unterminated [[[[['), 1)).toBe(false);
  });
});

describe('acceptsLargeBody', () => {
  it('admits only create, the core PATCH and MCP', () => {
    expect(acceptsLargeBody('POST', '/api/v1/org/cores')).toBe(true);
    expect(acceptsLargeBody('POST', '/api/v1/org/cores/')).toBe(true);
    expect(acceptsLargeBody('PATCH', '/api/v1/org/cores/abc')).toBe(true);
    expect(acceptsLargeBody('POST', '/mcp')).toBe(true);
    expect(acceptsLargeBody('POST', '/api/v1/org/cores/abc')).toBe(false);
    expect(acceptsLargeBody('PATCH', '/api/v1/org/cores/abc/x')).toBe(false);
    expect(acceptsLargeBody('POST', '/api/v1/org/products/search')).toBe(false);
    expect(acceptsLargeBody('GET', '/api/v1/org/me')).toBe(false);
  });
});
