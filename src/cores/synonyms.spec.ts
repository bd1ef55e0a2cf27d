import { buildSearchText, synonymsIn } from './synonyms';

describe('fashion synonyms', () => {
  it('expands a word to its whole group', () => {
    expect(synonymsIn('Boho summer')).toEqual(expect.arrayContaining(['boho', 'bohemian']));
    expect(synonymsIn('white trainers')).toEqual(expect.arrayContaining(['sneakers']));
  });

  it('matches multi-word phrases both ways', () => {
    expect(synonymsIn('dark blue suit')).toContain('navy');
    expect(synonymsIn('navy')).toContain('dark blue');
  });

  it('matches whole words only', () => {
    expect(synonymsIn('tango')).not.toContain('camel');
    expect(synonymsIn('greyhound')).not.toContain('gray');
  });

  it('returns nothing for unrelated text and keeps the own words in the search text', () => {
    expect(synonymsIn('carburettor')).toEqual([]);
    expect(buildSearchText('Capsule', ['navy'], ['minimalist'])).toMatch(
      /^Capsule \. navy \. minimalist \. .*dark blue/,
    );
  });
});
