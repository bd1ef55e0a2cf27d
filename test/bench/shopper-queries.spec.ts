import { feedRows, type RowTruth } from '../../bench/feed-generator';
import { SHOPPER_QUERIES } from '../../bench/shopper-queries';

describe('the search evaluation’s shopper queries', () => {
  const rows: RowTruth[] = [...feedRows(1, 20_000)].map((r) => r.truth);

  it.each(SHOPPER_QUERIES.map((q) => [q.query, q]))(
    '%s names products the feed has, and not every product',
    (_name, q) => {
      const answering = rows.filter((t) => q.relevant(t)).length;
      // Ten or more answer it (a top ten can be right), and most rows do not (the judgement selects).
      expect(answering).toBeGreaterThanOrEqual(10);
      expect(answering).toBeLessThan(rows.length / 4);
    },
  );

  it('judges by the generator’s garment, not its wording: a jumper answers sweater, a cardigan does not', () => {
    const sweater = SHOPPER_QUERIES.find((q) => q.query === 'sweater')!;
    const jumper = rows.find((t) => t.noun === 'Roll Neck Jumper')!;
    const cardigan = rows.find((t) => t.noun === 'Cardigan')!;
    expect(sweater.relevant(jumper)).toBe(true);
    expect(sweater.relevant(cardigan)).toBe(false);
  });
});
