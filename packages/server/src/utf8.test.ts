import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { exceedsUtf8Bytes } from './utf8.js';

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
