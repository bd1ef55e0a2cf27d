import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { colourFeatures, detached } from './product-colour';

/** A full collection, without starting Node with --expose-gc. */
function collect(): void {
  setFlagsFromString('--expose-gc');
  (runInNewContext('gc') as () => void)();
}

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
