import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { encodedLength, exceedsUtf8Bytes } from './utf8.js';

const bytes = (s: string) => new TextEncoder().encode(s).length;

describe('exceedsUtf8Bytes', () => {
  it('agrees with TextEncoder at every limit around the size', () => {
    fc.assert(
      fc.property(
        fc.string({ unit: 'binary', maxLength: 40 }),
        fc.integer({ min: -2, max: 2 }),
        (s, d) => {
          const size = bytes(s);
          const max = Math.max(0, size + d);
          expect(exceedsUtf8Bytes(s, max)).toBe(size > max);
        },
      ),
      { numRuns: 2000 },
    );
  });

  it('counts lone surrogates as 3 bytes', () => {
    expect(exceedsUtf8Bytes('\ud800', 3)).toBe(false);
    expect(exceedsUtf8Bytes('\ud800', 2)).toBe(true);
    expect(exceedsUtf8Bytes('\udc00a', 3)).toBe(true);
    expect(exceedsUtf8Bytes('😀', 4)).toBe(false);
    expect(exceedsUtf8Bytes('😀', 3)).toBe(true);
  });
});

describe('encodedLength (the count where there is no Buffer)', () => {
  it('agrees with TextEncoder on short texts', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'binary', maxLength: 40 }), (s) => {
        expect(encodedLength(s)).toBe(bytes(s));
      }),
      { numRuns: 1000 },
    );
  });

  it('keeps a surrogate pair whole where a step ends, and counts a lone one as 3 bytes', () => {
    for (const at of [8190, 8191, 8192, 16383]) {
      const pair = `${'a'.repeat(at)}😀${'é'.repeat(9000)}`;
      expect(encodedLength(pair)).toBe(bytes(pair));
      const lone = `${'a'.repeat(at)}\ud800${'b'.repeat(9000)}\udc00`;
      expect(encodedLength(lone)).toBe(bytes(lone));
      expect(encodedLength(lone)).toBe(at + 3 + 9000 + 3);
    }
  });

  it('decides a text over the limit the same way with and without Buffer', () => {
    const text = `{"pad":"${'€'.repeat(120_000)}${'x'.repeat(5)}"}`;
    const size = bytes(text);
    expect(encodedLength(text)).toBe(size);
    expect(exceedsUtf8Bytes(text, size)).toBe(false);
    expect(exceedsUtf8Bytes(text, size - 1)).toBe(true);
  });
});
