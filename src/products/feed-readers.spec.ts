import { createReadStream, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { NumberedRow, readDelimited, readJsonLines } from './feed-readers';

const dir = mkdtempSync(join(tmpdir(), 'feed-readers-'));
let files = 0;

function feedFile(text: string): string {
  const file = join(dir, `feed-${(files += 1)}.txt`);
  writeFileSync(file, text);
  return file;
}

async function readAll(rows: AsyncIterable<NumberedRow>): Promise<NumberedRow[]> {
  const out: NumberedRow[] = [];
  for await (const row of rows) out.push(row);
  return out;
}

describe('readDelimited (CSV)', () => {
  it('numbers rows by the line they start on across CRLF, quoted line breaks and blank lines', async () => {
    const file = feedFile(
      [
        '\uFEFFID, Title ,price',
        '1,"Coat, long",10',
        '2,"A two-line',
        'title",20',
        '',
        '3,Tee,30',
        '   ',
        '4,"Three',
        'line',
        'title",40',
        '5,Scarf,50',
      ].join('\r\n') + '\r\n',
    );
    const rows = await readAll(readDelimited(createReadStream(file), ','));
    expect(rows).toEqual([
      { line: 2, row: { id: '1', title: 'Coat, long', price: '10' } },
      { line: 3, row: { id: '2', title: 'A two-line\r\ntitle', price: '20' } },
      { line: 6, row: { id: '3', title: 'Tee', price: '30' } },
      { line: 8, row: { id: '4', title: 'Three\r\nline\r\ntitle', price: '40' } },
      { line: 11, row: { id: '5', title: 'Scarf', price: '50' } },
    ]);
  });

  it('turns a malformed quote into a rejection with its line and goes on', async () => {
    const file = feedFile('id,title\n1,ok\n2,"bad"x\n3,"fine"\n4,after\n');
    const rows = await readAll(readDelimited(createReadStream(file), ','));
    expect(rows[0]).toEqual({ line: 2, row: { id: '1', title: 'ok' } });
    expect(rows[1]).toEqual({ line: 3, error: expect.stringContaining('unreadable row') });
    expect(rows.at(-1)).toEqual({ line: 5, row: { id: '4', title: 'after' } });
  });

  it('names the lines a malformed quote ran over, whose rows it took', async () => {
    const file = feedFile('id,title\n1,ok\n2,"Bad "quote title\n3,a\n4,b\n5,"c"\n6,d\n');
    const rows = await readAll(readDelimited(createReadStream(file), ','));
    expect(rows[0]).toEqual({ line: 2, row: { id: '1', title: 'ok' } });
    expect(rows[1]).toEqual({
      line: 3,
      error: expect.stringMatching(
        /^unreadable row: .* \(lines 3-\d+ were read as this one row; the rows on them were not imported\)$/,
      ),
    });
  });

  it("reads Merchant's g: prefixes and spaced names in the header, and stops on a header without a required column", async () => {
    const file = feedFile('g:id,Image Link, g:Price \n1,https://cdn.example.com/1.jpg,10\n');
    const rows = await readAll(readDelimited(createReadStream(file), ',', undefined, ['id', 'image_link']));
    expect(rows).toEqual([
      { line: 2, row: { id: '1', image_link: 'https://cdn.example.com/1.jpg', price: '10' } },
    ]);
    const missing = feedFile('id,title\n1,ok\n');
    await expect(
      readAll(readDelimited(createReadStream(missing), ',', undefined, ['id', 'image_link'])),
    ).rejects.toThrow('line 1: the header has no image_link column');
  });

  it('reads rows with fewer or more cells than the header', async () => {
    const file = feedFile('id,title,price\n1,short\n2,long,3,extra\n');
    const rows = await readAll(readDelimited(createReadStream(file), ','));
    expect(rows).toEqual([
      { line: 2, row: { id: '1', title: 'short' } },
      { line: 3, row: { id: '2', title: 'long', price: '3' } },
    ]);
  });

  it('keeps multi-byte characters whole when they straddle read chunks', async () => {
    const titles = Array.from({ length: 400 }, (_, i) => `Écharpe — laine ${i} 🧣 naïve`);
    const file = feedFile(['id,title', ...titles.map((t, i) => `${i},${t}`)].join('\n') + '\n');
    // 7-byte reads split nearly every multi-byte character between two chunks.
    const rows = await readAll(readDelimited(createReadStream(file, { highWaterMark: 7 }), ','));
    expect(rows.map((r) => ('row' in r ? r.row.title : r.error))).toEqual(titles);
  });

  it('stops with the line number when a row never ends (an unclosed quote)', async () => {
    const body = Array.from({ length: 2000 }, (_, i) => `${i + 3},plain row ${i}`).join('\n');
    const file = feedFile(`id,title\n1,"unclosed\n${body}\n`);
    const rows: NumberedRow[] = [];
    await expect(
      (async () => {
        for await (const row of readDelimited(createReadStream(file), ',', 4096)) rows.push(row);
      })(),
    ).rejects.toThrow(/line 2: no end of row within 4096 characters/);
    expect(rows).toEqual([]);
  });

  it('pauses reading the file while the consumer is busy, then reads it to the end', async () => {
    const rowCount = 60_000;
    const lines = ['id,title,description'];
    for (let i = 0; i < rowCount; i += 1) lines.push(`${i},Title ${i},${'x'.repeat(80)}`);
    const file = feedFile(lines.join('\n') + '\n');
    const size = lines.join('\n').length + 1;
    const stream = createReadStream(file);
    const reader = readDelimited(stream, ',');
    const first = await reader.next();
    expect(first.value).toEqual(expect.objectContaining({ line: 2 }));
    await new Promise((resolve) => setTimeout(resolve, 200));
    // Only the parser's queue (a few thousand rows) was read ahead of the consumer, not the file.
    expect(stream.bytesRead).toBeLessThan(size / 4);
    let count = 1;
    for await (const row of reader) if ('row' in row) count += 1;
    expect(count).toBe(rowCount);
    expect(stream.bytesRead).toBe(size);
  });
});

describe('readDelimited (TSV)', () => {
  it("reads Merchant Center's quoted attributes: tabs, line breaks and doubled quotes inside quotes", async () => {
    const file = feedFile(
      'id\ttitle\tdescription\n' +
        '1\t"12"" Teflon Pan"\t"Line one\nline\ttwo"\n' +
        '2\t12" Pan\tSay "hi\n' +
        '3\tCoat\tPlain\n',
    );
    const rows = await readAll(readDelimited(createReadStream(file), '\t'));
    expect(rows).toEqual([
      { line: 2, row: { id: '1', title: '12" Teflon Pan', description: 'Line one\nline\ttwo' } },
      // A quote mark inside an unquoted value is the character itself.
      { line: 4, row: { id: '2', title: '12" Pan', description: 'Say "hi' } },
      { line: 5, row: { id: '3', title: 'Coat', description: 'Plain' } },
    ]);
  });

  it('rejects a value that opens a quote it never closes properly, naming the lines it ran over', async () => {
    const file = feedFile('id\ttitle\tbrand\n1\t"Best" coat\tLune\n2\tCoat\tOstra');
    const rows = await readAll(readDelimited(createReadStream(file), '\t'));
    expect(rows).toEqual([
      { line: 2, error: expect.stringMatching(/^unreadable row: .*lines 2-3 were read as this one row/) },
    ]);
  });
});

describe('readJsonLines', () => {
  it('numbers lines, skips blank ones and rejects what is not a JSON object', async () => {
    const file = feedFile('\uFEFF{"id":"1"}\n\n[1]\n{bad\n{"id":"2"}\n');
    const rows = await readAll(readJsonLines(createReadStream(file)));
    expect(rows).toEqual([
      { line: 1, row: { id: '1' } },
      { line: 3, error: 'not a JSON object' },
      { line: 4, error: 'invalid JSON' },
      { line: 5, row: { id: '2' } },
    ]);
  });
});
