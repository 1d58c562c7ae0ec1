import { bodyLimitBytes, malformedStringAt, nestingDepth } from './request-body';

describe('reading request bodies', () => {
  it.each([
    ['100b', 100],
    ['4kb', 4096],
    ['1mb', 1_048_576],
    ['2MB', 2_097_152],
  ])('reads the body limit %s as %d bytes', (limit, bytes) => {
    expect(bodyLimitBytes(limit)).toBe(bytes);
  });

  it('measures nesting without being fooled by brackets inside strings or escaped quotes', () => {
    expect(nestingDepth('{}')).toBe(1);
    expect(nestingDepth('{"a":[1,{"b":[]}]}')).toBe(4);
    expect(nestingDepth('{"a":"[[[[{{{{"}')).toBe(1);
    expect(nestingDepth('{"a":"\\"[[[["}')).toBe(1);
    expect(nestingDepth('['.repeat(5000) + ']'.repeat(5000))).toBe(5000);
    expect(nestingDepth('"just a string"')).toBe(0);
  });

  it('finds a lone surrogate in a value or a key and names where it is, and accepts real pairs', () => {
    expect(malformedStringAt({ email: 'a\ud800@b.co' })).toBe('email');
    expect(malformedStringAt({ alert: { tags: ['ok', 'x\udfff'] } })).toBe('alert.tags.1');
    expect(malformedStringAt({ ['k\ud801']: 1 })).toBe('k\ud801');
    expect(malformedStringAt({ emoji: 'rocket \ud83d\ude80', nested: { n: 1, b: true, z: null } })).toBeUndefined();
    expect(malformedStringAt('\udc00')).toBe('body');
  });
});
