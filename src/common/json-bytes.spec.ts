import { randomBytes } from 'node:crypto';
import { LONG_STRING_BYTES, longPlainStrings, parseJsonBytes } from './json-bytes';

const base64 = (bytes: number): string => randomBytes(bytes).toString('base64');
const dataUrl = (bytes: number): string => `data:image/jpeg;base64,${base64(bytes)}`;

describe('parseJsonBytes', () => {
  const long = LONG_STRING_BYTES;

  it.each([
    ['a create body', { name: 'Autumn', images: [dataUrl(long), dataUrl(2 * long), dataUrl(100)] }],
    [
      'an MCP call',
      { jsonrpc: '2.0', id: 1, method: 'tools/call', params: { arguments: { images: [dataUrl(long)] } } },
    ],
    [
      'long strings with escapes and non-ASCII',
      { a: `${'x'.repeat(long)}"\\\n`, b: `café ${'é'.repeat(long)}`, c: 'ü' },
    ],
    ['a long key', { [base64(long)]: dataUrl(long) }],
    ['a long string at the top of an array', [dataUrl(long), 1, null, true, { n: -1.5e3 }]],
    ['short strings only', { name: 'x', images: ['data:image/png;base64,AAAA'] }],
  ])('equals JSON.parse for %s', (_what, value) => {
    const text = JSON.stringify(value, null, 1);
    expect(parseJsonBytes(Buffer.from(text))).toEqual(JSON.parse(text));
  });

  it('reads only the long ASCII string values without escapes from the bytes', () => {
    const plain = dataUrl(long);
    const text = JSON.stringify({ [base64(long)]: 1, a: plain, b: `${plain}\\`, c: `${plain}é`, d: 'short' });
    const found = longPlainStrings(Buffer.from(text)).map(([s, e]) => text.slice(s, e));
    expect(found).toEqual([plain]);
  });

  it('cannot be fooled by a client sending a string that looks like a placeholder', () => {
    const text = JSON.stringify({ a: '\u0000placeholder:0', images: [dataUrl(long)] });
    expect(parseJsonBytes(Buffer.from(text))).toEqual(JSON.parse(text));
  });

  it('fails on malformed JSON, a bare value or an unterminated long string as body-parser did, and reads an empty body as {}', () => {
    for (const text of [
      `{"images": ["${base64(long)}"`,
      `{"a": "${base64(long)}" "b": 1}`,
      '"text"',
      '  42',
      ' ',
    ]) {
      expect(() => parseJsonBytes(Buffer.from(text))).toThrow(
        expect.objectContaining({ status: 400, type: 'entity.parse.failed' }) as Error,
      );
    }
    expect(parseJsonBytes(Buffer.alloc(0))).toEqual({});
  });
});
