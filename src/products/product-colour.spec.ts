import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { colourFeatures, detached } from './product-colour';

/** A full collection, without starting Node with --expose-gc. */
function collect(): void {
  setFlagsFromString('--expose-gc');
  (runInNewContext('gc') as () => void)();
}

describe('colourFeatures', () => {
  it('takes the first colour of a value for the dominant one, and none when the first is unknown', () => {
    expect(colourFeatures('Navy/White')?.colours?.map((c) => c.name)).toEqual(['navy', 'white']);
    // `Petal` names no colour the vocabulary, the dataset or a colour word knows.
    expect(colourFeatures('Petal')).toBeNull();
    // A petal-coloured garment with black trim is not a black garment.
    expect(colourFeatures('Petal/Black')).toBeNull();
    expect(colourFeatures('Petal & Black')).toBeNull();
    // An unknown second colour leaves the first.
    const navy = colourFeatures('Navy/Petal');
    expect(navy?.name).toBe('navy');
    expect(navy?.colours?.map((c) => c.name)).toEqual(['navy']);
  });
});

describe('colourFeatures cache', () => {
  it('keeps a copy of the value, not the text it was cut from', () => {
    const heap = () => process.memoryUsage().heapUsed;
    collect();
    const before = heap();
    // A feed value cut from a 40 MB chunk of text, as a parser cuts it; only the cache could keep it.
    const chunk = () => `${'x'.repeat(40 * 1024 * 1024)},Dusty Pink/Ecru ${Date.now()},`;
    (() => {
      const text = chunk();
      const value = text.slice(text.indexOf(',') + 1, text.lastIndexOf(','));
      expect(colourFeatures(value)).not.toBeNull();
    })();
    collect();
    collect();
    expect(heap() - before).toBeLessThan(10 * 1024 * 1024);
  });

  it('detached() returns the same characters', () => {
    for (const text of ['', 'a', 'Heather Grey', 'Rose Quartz / Ecru Marl', 'é'.repeat(40)]) {
      expect(detached(text)).toBe(text);
    }
  });
});
