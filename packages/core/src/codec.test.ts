import { afterEach, describe, expect, it, vi } from 'vitest';
import { jsonReaderOf, losslessNumbers } from './codec.js';
import { MAX_BIGINT_DIGITS, parseJson } from './json.js';

describe('losslessNumbers bounds the digits it converts to a BigInt', () => {
  afterEach(() => {
    vi.restoreAllMocks();
  });

  it('keeps an integer of a million digits as its exact text and never converts it', () => {
    // Converting decimal text to a BigInt is quadratic in its digits: counted, not timed, the
    // reader must not attempt it for a number longer than the bound.
    const toBigInt = vi.spyOn(globalThis, 'BigInt');
    const read = jsonReaderOf(losslessNumbers)!;
    const huge = '7'.repeat(1_000_000);
    const value = read(`{"a":${huge},"b":[-${huge}]}`) as { a: unknown; b: unknown[] };
    expect(value.a).toBe(huge);
    expect(value.b[0]).toBe(`-${huge}`);
    const longest = Math.max(0, ...toBigInt.mock.calls.map(([text]) => String(text).length));
    expect(longest).toBeLessThanOrEqual(MAX_BIGINT_DIGITS + 1);
  });

  it('converts up to MAX_BIGINT_DIGITS digits, the sign not counted, and keeps longer ones as text', () => {
    const atBound = '9'.repeat(MAX_BIGINT_DIGITS);
    const over = '9'.repeat(MAX_BIGINT_DIGITS + 1);
    expect(MAX_BIGINT_DIGITS).toBe(4_300);
    expect(
      parseJson(`[${atBound},-${atBound},${over},-${over},12345678901234567890]`, { bigint: true }),
    ).toStrictEqual([BigInt(atBound), -BigInt(atBound), over, `-${over}`, 12345678901234567890n]);
  });

  it('takes its bound from maxBigIntDigits; fractions and exponents stay numbers', () => {
    const text = '[123456789012345678901,12345678901234567890,1.5e400,123456789012345678901.5]';
    expect(parseJson(text, { bigint: true, maxBigIntDigits: 20 })).toStrictEqual([
      '123456789012345678901',
      12345678901234567890n,
      Number.POSITIVE_INFINITY,
      Number('123456789012345678901.5'),
    ]);
    // Without bigint nothing changes: JSON.parse's numbers.
    expect(parseJson(text, { maxBigIntDigits: 20 })).toStrictEqual(JSON.parse(text));
  });
});
