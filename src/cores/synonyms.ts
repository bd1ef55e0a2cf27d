/**
 * Fashion synonyms for the core list search. Each group is a set of interchangeable words or
 * phrases; when a core's name, tags or style attributes contain one member, all members are added to
 * its search text, so a query for any of them finds it (PostgreSQL's English stemming does the rest:
 * "dresses" finds "dress").
 */
export const SYNONYM_GROUPS: readonly (readonly string[])[] = [
  ['boho', 'bohemian', 'hippie'],
  ['navy', 'dark blue', 'midnight blue'],
  ['trainers', 'sneakers', 'kicks'],
  ['minimal', 'minimalist', 'minimalism', 'clean lines'],
  ['grey', 'gray'],
  ['jumper', 'sweater', 'pullover'],
  ['trousers', 'pants', 'slacks'],
  ['denim', 'jeans'],
  ['tee', 't-shirt', 'tshirt'],
  ['cream', 'ivory', 'off-white', 'ecru'],
  ['burgundy', 'wine', 'oxblood', 'maroon', 'bordeaux'],
  ['camel', 'tan', 'caramel'],
  ['chocolate', 'dark brown'],
  ['charcoal', 'dark grey', 'dark gray'],
  ['preppy', 'ivy league', 'collegiate'],
  ['romantic', 'feminine'],
  ['edgy', 'grunge', 'punk'],
  ['earthy', 'earth tones', 'natural'],
  ['monochrome', 'monochromatic', 'tonal'],
  ['striped', 'stripes', 'stripe', 'pinstripe'],
  ['checked', 'check', 'plaid', 'tartan', 'gingham'],
  ['print', 'printed', 'patterned'],
  ['sporty', 'athleisure', 'athletic'],
  ['classic', 'timeless'],
  ['bold', 'vivid', 'vibrant'],
  ['muted', 'subdued', 'dusty'],
  ['blush', 'pale pink', 'dusty pink'],
  ['rust', 'burnt orange'],
  ['olive', 'khaki green'],
  ['handbag', 'purse', 'bag'],
  ['coat', 'overcoat', 'outerwear'],
  ['heels', 'pumps', 'stilettos'],
];

function normalise(text: string): string {
  return ` ${text
    .toLowerCase()
    .replace(/[^a-z0-9-]+/g, ' ')
    .trim()} `;
}

/** The phrases of every group that has a member in `text` (whole words only). */
export function synonymsIn(text: string): string[] {
  const haystack = normalise(text);
  const found = new Set<string>();
  for (const group of SYNONYM_GROUPS) {
    if (group.some((member) => haystack.includes(normalise(member)))) group.forEach((m) => found.add(m));
  }
  return [...found];
}

/** Search text of a core: its own words plus every synonym they imply. */
export function buildSearchText(
  name: string,
  tags: readonly string[],
  attributes: readonly string[],
): string {
  const own = [name, ...tags, ...attributes].join(' . ');
  const extra = synonymsIn(own);
  return extra.length > 0 ? `${own} . ${extra.join(' . ')}` : own;
}
