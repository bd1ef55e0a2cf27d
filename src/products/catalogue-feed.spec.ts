import {
  formatFromName,
  mapAvailability,
  mapGender,
  paidPrice,
  parsePrice,
  primaryColourName,
  RawFeedRow,
  sniffFormat,
  validateFeedRow,
} from './catalogue-feed';

const GOOD: RawFeedRow = {
  id: 'SKU-1',
  title: 'Camel wool coat',
  description: 'A long coat.',
  brand: 'Maison Lune',
  price: '129.00 USD',
  link: 'https://shop.example.com/p/1',
  image_link: 'https://cdn.example.com/p/1.jpg',
  additional_image_link: 'https://cdn.example.com/p/1-alt.jpg,https://cdn.example.com/p/1-b.jpg',
  gender: 'female',
  color: 'Camel/Cream',
  material: 'Wool',
  pattern: 'solid',
  product_type: 'Apparel > Outerwear',
  google_product_category: 'Apparel & Accessories > Clothing > Outerwear',
  availability: 'in_stock',
};

describe('parsePrice', () => {
  it.each([
    ['129.00 USD', 129, 'USD'],
    ['129 usd', 129, 'USD'],
    ['EUR 49.5', 49.5, 'EUR'],
    ['1,299.00 GBP', 1299, 'GBP'],
    ['0.00 USD', 0, 'USD'],
    ['75', 75, 'USD'],
  ])('parses %s', (text, amount, currency) => {
    expect(parsePrice(text)).toEqual({ amount, currency });
  });

  it('accepts JSON numbers', () => {
    expect(parsePrice(42.5)).toEqual({ amount: 42.5, currency: 'USD' });
  });

  it.each([
    '',
    'free',
    '-5.00 USD',
    '12.345 USD',
    '12,34 USD',
    '129.00 US',
    'USD',
    '1e5 USD',
    '99999999999 USD',
  ])('rejects %p', (text) => {
    expect(parsePrice(text)).toBeNull();
  });

  it('rejects negative and non-finite numbers', () => {
    expect(parsePrice(-1)).toBeNull();
    expect(parsePrice(Number.NaN)).toBeNull();
    expect(parsePrice(null)).toBeNull();
  });
});

describe('mapGender', () => {
  it.each([
    ['female', 'women'],
    ['Female', 'women'],
    ['male', 'men'],
    ['unisex', 'unisex'],
    ['', 'unisex'],
    [undefined, 'unisex'],
  ])('maps %p to %p', (value, expected) => {
    expect(mapGender(value)).toBe(expected);
  });

  it('returns null for unknown values', () => {
    expect(mapGender('kids')).toBeNull();
    expect(mapGender(3)).toBeNull();
  });
});

describe('validateFeedRow', () => {
  it('maps a good row to the catalogue fields', () => {
    const result = validateFeedRow(GOOD);
    expect(result).toEqual({
      ok: true,
      row: {
        externalId: 'SKU-1',
        title: 'Camel wool coat',
        designer: 'Maison Lune',
        description: 'A long coat.',
        price: 129,
        currency: 'USD',
        url: 'https://shop.example.com/p/1',
        mediaUrl: 'https://cdn.example.com/p/1.jpg',
        mediaUrlAlt: 'https://cdn.example.com/p/1-alt.jpg',
        gender: 'women',
        colour: 'Camel/Cream',
        material: 'Wool',
        pattern: 'solid',
        category: 'Apparel > Outerwear',
        availability: 'in_stock',
      },
    });
  });

  it('prefers the affiliate link and falls back to google_product_category', () => {
    const result = validateFeedRow({
      ...GOOD,
      affiliate_link: 'https://go.example.net/a?p=1',
      product_type: '',
      additional_image_link: ['https://cdn.example.com/x.jpg'],
    });
    expect(result.ok && result.row.url).toBe('https://go.example.net/a?p=1');
    expect(result.ok && result.row.category).toBe('Apparel & Accessories > Clothing > Outerwear');
    expect(result.ok && result.row.mediaUrlAlt).toBe('https://cdn.example.com/x.jpg');
  });

  it('cuts long text between characters, and counts an id in characters', () => {
    const title = `${'a'.repeat(499)}\u{1F600}tail`;
    const result = validateFeedRow({ ...GOOD, title });
    expect(result.ok && result.row.title).toBe('a'.repeat(499));
    const emojiId = `emoji-id-${'\u{1F600}'.repeat(200)}`;
    const long = validateFeedRow({ ...GOOD, id: emojiId });
    expect(long.ok && long.row.externalId).toBe(emojiId);
  });

  it('splits additional_image_link only before the next URL (image CDNs put commas in paths)', () => {
    const cdn = 'https://res.cloudinary.com/demo/image/upload/w_500,h_500,c_fill/a3.jpg';
    for (const value of [
      cdn,
      `${cdn},https://cdn.example.com/b.jpg`,
      `${cdn}, http://cdn.example.com/c.jpg`,
    ]) {
      const result = validateFeedRow({ ...GOOD, additional_image_link: value });
      expect(result.ok && result.row.mediaUrlAlt).toBe(cdn);
    }
  });

  it('treats a missing additional image as null', () => {
    const result = validateFeedRow({ ...GOOD, additional_image_link: '' });
    expect(result.ok && result.row.mediaUrlAlt).toBeNull();
  });

  it.each([
    [{ id: '' }, 'missing id'],
    [{ title: '  ' }, 'missing title'],
    [{ price: undefined, link: '' }, 'missing price, link'],
    [{ image_link: '' }, 'missing image_link'],
    [{ price: 'cheap' }, 'bad price'],
    [{ price: '-3.00 USD' }, 'bad price'],
    [{ link: 'ftp://shop.example.com/p/1' }, 'bad URL in link'],
    [{ link: 'javascript:alert(1)' }, 'bad URL in link'],
    [{ image_link: '/relative.jpg' }, 'bad URL in image_link'],
    [{ affiliate_link: 'not a url' }, 'bad URL in affiliate_link'],
    [{ additional_image_link: 'data:image/png;base64,AAAA' }, 'bad URL in additional_image_link'],
    [{ gender: 'kids' }, 'unknown gender'],
    [{ title: 'Null\u0000byte' }, 'title holds a NUL character'],
    [{ description: 'caf\u0000' }, 'description holds a NUL character'],
    [{ id: 'sku-caf\uFFFD' }, 'id holds bytes that are not UTF-8'],
    [{ price: '129.00 XYZ' }, 'bad price'],
    [{ availability: 'limited' }, 'unknown availability "limited"'],
    [{ availability: ['in_stock'] }, 'unknown availability'],
  ])('rejects %p', (patch, reason) => {
    const result = validateFeedRow({ ...GOOD, ...patch });
    expect(result.ok).toBe(false);
    expect(!result.ok && result.reason).toContain(reason);
  });
});

// A sixth of the benchmark's realistic feed is on sale: `maxPrice: 200` missed a coat sold at 197.87
// (price 282.67), and the answer showed 282.67.
describe('paidPrice (sale_price)', () => {
  const regular = { amount: 282.67, currency: 'USD' };
  const at = new Date('2026-11-27T12:00:00Z');

  it('is the sale price when it is lower, in the same currency, and its window (if any) holds now', () => {
    expect(paidPrice({ sale_price: '197.87 USD' }, regular, at)).toBe(197.87);
    expect(paidPrice({ sale_price: '197.87' }, regular, at)).toBe(197.87);
    const window = '2026-11-20T00:00:00Z/2026-11-30T00:00:00Z';
    expect(paidPrice({ sale_price: '197.87 USD', sale_price_effective_date: window }, regular, at)).toBe(
      197.87,
    );
    expect(validateFeedRow({ ...GOOD, price: '282.67 USD', sale_price: '197.87 USD' })).toMatchObject({
      ok: true,
      row: { price: 197.87, currency: 'USD' },
    });
  });

  it('is the regular price otherwise: no sale, not lower, another currency, outside or unreadable window', () => {
    expect(paidPrice({}, regular, at)).toBe(282.67);
    expect(paidPrice({ sale_price: '' }, regular, at)).toBe(282.67);
    expect(paidPrice({ sale_price: 'half off' }, regular, at)).toBe(282.67);
    expect(paidPrice({ sale_price: '300.00 USD' }, regular, at)).toBe(282.67);
    expect(paidPrice({ sale_price: '150.00 EUR' }, regular, at)).toBe(282.67);
    const over = '2026-11-01T00:00:00Z/2026-11-20T00:00:00Z';
    expect(paidPrice({ sale_price: '197.87 USD', sale_price_effective_date: over }, regular, at)).toBe(
      282.67,
    );
    expect(
      paidPrice({ sale_price: '197.87 USD', sale_price_effective_date: 'Black Friday' }, regular, at),
    ).toBe(282.67);
  });
});

describe('mapAvailability', () => {
  it.each([
    ['in_stock', 'in_stock'],
    ['In Stock', 'in_stock'],
    [' out of stock ', 'out_of_stock'],
    ['Out-of-Stock', 'out_of_stock'],
    ['preorder', 'preorder'],
    ['pre-order', 'preorder'],
    ['backorder', 'backorder'],
    ['back order', 'backorder'],
  ])('reads %p as %p (Merchant Center and its older spellings)', (value, expected) => {
    expect(mapAvailability(value)).toBe(expected);
  });

  it('counts an absent or empty value as unknown to the feed (null), anything else as invalid', () => {
    expect(mapAvailability(undefined)).toBeNull();
    expect(mapAvailability(null)).toBeNull();
    expect(mapAvailability('  ')).toBeNull();
    expect(mapAvailability('sold out')).toBe(false);
    expect(mapAvailability('available for order')).toBe(false);
    expect(mapAvailability(1)).toBe(false);
  });

  it('stores the folded value with the row', () => {
    const result = validateFeedRow({ ...GOOD, availability: 'Out of Stock' });
    expect(result.ok && result.row.availability).toBe('out_of_stock');
  });
});

describe('feed helpers', () => {
  it('takes the first colour of a combined colour', () => {
    expect(primaryColourName('Navy/White')).toBe('navy');
    expect(primaryColourName('black, red')).toBe('black');
    expect(primaryColourName('Camel & cream')).toBe('camel');
    expect(primaryColourName('  ')).toBeNull();
    expect(primaryColourName(null)).toBeNull();
  });

  it('detects the format from the extension or the first line', () => {
    expect(formatFromName('feed.CSV')).toBe('csv');
    expect(formatFromName('feed.tsv')).toBe('tsv');
    expect(formatFromName('feed.ndjson')).toBe('jsonl');
    expect(formatFromName('feed.txt')).toBeNull();
    expect(sniffFormat('id\ttitle\tprice')).toBe('tsv');
    expect(sniffFormat('\uFEFFid,title,price')).toBe('csv');
    expect(sniffFormat('{"id":"1"}')).toBe('jsonl');
  });
});
