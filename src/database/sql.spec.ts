import { join, param, raw, render, sql } from './sql';

describe('sql builder', () => {
  it('numbers plain values in order of appearance', () => {
    expect(render(sql`SELECT ${raw('a')} FROM t WHERE x = ${1} AND y = ${'b'}`)).toEqual({
      text: 'SELECT a FROM t WHERE x = $1 AND y = $2',
      values: [1, 'b'],
    });
  });

  it('binds a param() once wherever it appears, nested fragments included', () => {
    const limit = param(5);
    const inner = sql`SELECT id FROM t LIMIT ${limit}`;
    expect(render(sql`(${inner}) UNION ALL (${inner}) LIMIT ${limit} OFFSET ${5}`)).toEqual({
      text: '(SELECT id FROM t LIMIT $1) UNION ALL (SELECT id FROM t LIMIT $1) LIMIT $1 OFFSET $2',
      values: [5, 5],
    });
  });

  it('joins fragments, none giving empty text', () => {
    const parts = [sql`a = ${1}`, sql`b = ${2}`, sql`c = ${3}`];
    expect(render(join(parts, ' AND '))).toEqual({ text: 'a = $1 AND b = $2 AND c = $3', values: [1, 2, 3] });
    expect(render(join([], ' AND '))).toEqual({ text: '', values: [] });
  });

  it('never puts a value into the text', () => {
    const evil = "'; DROP TABLE products; --";
    expect(render(sql`SELECT ${evil}`)).toEqual({ text: 'SELECT $1', values: [evil] });
  });
});
