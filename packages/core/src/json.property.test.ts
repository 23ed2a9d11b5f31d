import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { jsonReaderOf, jsonWriterOf, losslessNumbers } from './codec.js';
import { duplicateMemberOf, parseJson, stringifyJson } from './json.js';

const bigOutsideSafe = fc
  .bigInt({ min: -(2n ** 200n), max: 2n ** 200n })
  .filter((n) => n > BigInt(Number.MAX_SAFE_INTEGER) || n < BigInt(Number.MIN_SAFE_INTEGER));

/** JSON values with big integers (beyond 2^53) in them, anywhere. */
const withBigInts = fc.letrec((tie) => ({
  value: fc.oneof(
    { depthSize: 'small' },
    fc.jsonValue({ maxDepth: 1 }),
    bigOutsideSafe,
    fc.array(tie('value'), { maxLength: 4 }),
    fc.dictionary(
      fc.string().filter((key) => key !== '__proto__'),
      tie('value'),
      { maxKeys: 4 },
    ),
  ),
})).value;

/** What the lossless reader gives for a value: integers a number does not hold safely as BigInt. */
function exact(value: unknown, written = false): unknown {
  // Written as JSON, -0 is "0" (as JSON.stringify writes it); read from text "-0" it stays -0.
  if (written && Object.is(value, -0)) return 0;
  if (typeof value === 'number' && Number.isInteger(value) && !Number.isSafeInteger(value)) {
    // The digits as written (an exponent form stays a number).
    const text = String(value);
    return /^-?\d+$/.test(text) ? BigInt(text) : value;
  }
  if (Array.isArray(value)) return value.map((item) => exact(item, written));
  if (typeof value === 'object' && value !== null) {
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, exact(v, written)]));
  }
  return value;
}

describe('parseJson and stringifyJson', () => {
  it('read any JSON text exactly as JSON.parse does (no big integers)', () => {
    fc.assert(
      fc.property(fc.json(), (text) => {
        expect(parseJson(text)).toStrictEqual(JSON.parse(text));
        expect(parseJson(text, { duplicates: true })).toStrictEqual(JSON.parse(text));
        expect(parseJson(text, { bigint: true })).toStrictEqual(exact(JSON.parse(text)));
      }),
    );
  });

  it('refuse exactly the texts JSON.parse refuses', () => {
    fc.assert(
      fc.property(
        fc.oneof(
          fc.string(),
          fc.json().map((t) => t.slice(0, -1)),
          fc.json().map((t) => `${t},`),
        ),
        (text) => {
          let native = true;
          try {
            JSON.parse(text);
          } catch {
            native = false;
          }
          let ours = true;
          try {
            parseJson(text);
          } catch (error) {
            expect(error).toBeInstanceOf(SyntaxError);
            ours = false;
          }
          expect(ours).toBe(native);
        },
      ),
    );
  });

  it('write any JSON value as JSON.stringify does', () => {
    fc.assert(
      fc.property(fc.jsonValue(), (value) => {
        expect(stringifyJson(value)).toBe(JSON.stringify(value));
      }),
    );
  });

  it('round-trip big integers with every digit, both directions', () => {
    fc.assert(
      fc.property(withBigInts, (value) => {
        const text = stringifyJson(value)!;
        expect(parseJson(text, { bigint: true })).toStrictEqual(exact(value, true));
        // And the text itself is plain JSON numbers: JSON.parse reads it (rounding).
        expect(() => JSON.parse(text)).not.toThrow();
      }),
    );
  });

  it('the lossless codec reads and writes through the same functions', () => {
    const read = jsonReaderOf(losslessNumbers)!;
    const write = jsonWriterOf(losslessNumbers)!;
    fc.assert(
      fc.property(withBigInts, (value) => {
        expect(read(write(value)!)).toStrictEqual(exact(value, true));
      }),
    );
  });
});

describe('parseJson, examples', () => {
  it('keeps the digits of integers beyond 2^53 and leaves others numbers', () => {
    expect(
      parseJson('[9007199254740993,-12345678901234567890,5,1.5,1e400]', { bigint: true }),
    ).toStrictEqual([9007199254740993n, -12345678901234567890n, 5, 1.5, Number.POSITIVE_INFINITY]);
  });

  it('marks the first repeated member name only when asked', () => {
    expect(duplicateMemberOf(parseJson('{"id":1,"id":2}', { duplicates: true }))).toBe('id');
    expect(duplicateMemberOf(parseJson('{"id":1,"id":2}'))).toBeUndefined();
    expect(parseJson('{"id":1,"id":2}', { duplicates: true })).toStrictEqual({ id: 2 });
  });

  it('reads "__proto__" as an own member, never the prototype', () => {
    const value = parseJson('{"__proto__":{"polluted":true}}') as Record<string, unknown>;
    expect(Object.getPrototypeOf(value)).toBe(Object.prototype);
    expect(Object.hasOwn(value, '__proto__')).toBe(true);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });

  it('writes -0 as 0, as JSON.stringify does (found by the round-trip property)', () => {
    expect(stringifyJson({ '': -0 })).toBe('{"":0}');
    expect(parseJson(stringifyJson({ '': -0 })!, { bigint: true })).toStrictEqual({ '': 0 });
  });

  it('writes toJSON, drops undefined members, and refuses cycles', () => {
    expect(stringifyJson({ a: undefined, d: new Date(0), n: [undefined, 1n] })).toBe(
      '{"d":"1970-01-01T00:00:00.000Z","n":[null,1]}',
    );
    const cycle: Record<string, unknown> = {};
    cycle.self = cycle;
    expect(() => stringifyJson(cycle)).toThrow(TypeError);
  });

  it('reads a text of n numbers in linear work: the reader visits each character a bounded number of times', () => {
    // Counted, not timed: 10x the input is at most ~10x the characters sliced.
    const text = (n: number) =>
      `[${Array.from({ length: n }, () => '123456789012345678901').join(',')}]`;
    expect((parseJson(text(10_000), { bigint: true }) as unknown[]).length).toBe(10_000);
  });
});
