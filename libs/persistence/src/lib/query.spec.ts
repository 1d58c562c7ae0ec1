import { InvalidQueryError } from './errors';
import { applyUpdate, checkUpdate, cleanDocument, parseFilter, seedFromFilter } from './query';

describe('query parsing', () => {
  it('parses equalities on dotted paths and ranges of one kind', () => {
    const when = new Date('2026-01-01T00:00:00Z');
    expect(parseFilter({ wallet: 'G1', 'alert.level': 'high', hf: { $gte: 1, $lt: 2 }, at: { $gt: when } })).toEqual([
      { kind: 'eq', path: ['wallet'], value: 'G1' },
      { kind: 'eq', path: ['alert', 'level'], value: 'high' },
      {
        kind: 'range',
        path: ['hf'],
        of: 'number',
        bounds: [
          ['$gte', 1],
          ['$lt', 2],
        ],
      },
      { kind: 'range', path: ['at'], of: 'date', bounds: [['$gt', when]] },
    ]);
  });

  it.each([
    ['an unknown operator', { a: { $ne: 1 } }],
    ['a range mixing numbers and dates', { a: { $gt: 1, $lt: new Date() } }],
    ['an empty range', { a: {} }],
    ['a non-finite bound', { a: { $gt: Number.POSITIVE_INFINITY } }],
    ['an array value', { a: [1, 2] }],
    ['a path reaching the prototype', { 'a.__proto__': 1 }],
    ['a path with punctuation', { 'a;drop': 1 }],
    ['an empty segment', { 'a..b': 1 }],
  ])('refuses %s', (_name, filter) => {
    expect(() => parseFilter(filter as never)).toThrow(InvalidQueryError);
  });

  it('cleans documents: bigint to string, undefined dropped, unsafe names refused', () => {
    expect(cleanDocument({ a: 10n ** 30n, b: undefined, c: [undefined, 1], d: { e: 1 } })).toEqual({
      a: '1000000000000000000000000000000',
      c: [null, 1],
      d: { e: 1 },
    });
    expect(() => cleanDocument(JSON.parse('{"__proto__": {"x": 1}}'))).toThrow(InvalidQueryError);
    expect(() => cleanDocument({ 'a.b': 1 })).toThrow(InvalidQueryError);
    expect(() => cleanDocument({ a: new Map() })).toThrow(InvalidQueryError);
    expect(() => cleanDocument({ a: () => 1 })).toThrow(InvalidQueryError);
  });

  it('seeds an upsert from equalities only, nesting dotted paths', () => {
    expect(
      seedFromFilter(
        parseFilter({ wallet: 'G', 'alert.level': 'high', 'alert.pool': 'C', hf: { $gt: 1 }, gone: null }),
      ),
    ).toEqual({
      wallet: 'G',
      alert: { level: 'high', pool: 'C' },
    });
  });

  it('applies set, inc (from zero), unset, and setOnInsert only when inserting', () => {
    const update = checkUpdate<{ id: string; a?: number; b?: string; c?: string }>({
      set: { b: 'x' },
      inc: { a: 2 },
      unset: ['c'],
      setOnInsert: { c: 'new' },
    });
    expect(applyUpdate({ a: 1, c: 'old' }, update, false)).toEqual({ a: 3, b: 'x' });
    expect(applyUpdate({}, { ...update, unset: [] }, true)).toEqual({ a: 2, b: 'x', c: 'new' });
    expect(() => applyUpdate({ a: 'text' }, update, false)).toThrow(InvalidQueryError);
  });

  it('refuses updates of id, of nested paths and of one field twice', () => {
    expect(() => checkUpdate({ set: { id: 'x' } } as never)).toThrow(InvalidQueryError);
    expect(() => checkUpdate({ set: { 'a.b': 1 } } as never)).toThrow(InvalidQueryError);
    expect(() => checkUpdate({ set: { a: 1 }, inc: { a: 1 } } as never)).toThrow(InvalidQueryError);
  });
});
