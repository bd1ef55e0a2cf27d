import { seedList } from '../../bench/service';

describe('bench option parsing: seedList', () => {
  it('reads a range and a comma list, in order, and nothing when the option is absent', () => {
    expect(seedList('9-12', '--seeds')).toEqual([9, 10, 11, 12]);
    expect(seedList('3, 5,7', '--seeds')).toEqual([3, 5, 7]);
    expect(seedList(undefined, '--seeds')).toEqual([]);
  });

  it('names the option when a value is not a seed', () => {
    expect(() => seedList('3,x', '--more-seeds')).toThrow('--more-seeds: not a seed: x');
    expect(() => seedList('0', '--seeds')).toThrow('--seeds: not a seed: 0');
  });
});
