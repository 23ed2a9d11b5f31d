// The skipper against JSON.parse: for any JSON value, written compact or indented and followed by
// anything that may follow a value, the skip ends exactly where the value's text ends, the text
// up to there parses to the value, each member's and element's skip ends where its text does,
// and a skip over any proper prefix of a string, array or object says the text ended. fast-check
// prints the seed and path of a failure: replay it with `{ seed, path }` in `fc.assert`.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { type JsonSkipState, skipJsonSpace, skipJsonValue, skipNested } from './json-skip.js';

/** Strings rich in what a skipper can get wrong: quotes, backslash runs, brackets, non-ASCII. */
const tricky = fc
  .array(
    fc.constantFrom('"', '\\', '\\\\', '[', ']', '{', '}', ',', ':', ' ', 'a', 'é', '😀', '\n'),
    {
      maxLength: 12,
    },
  )
  .map((parts) => parts.join(''));

const value = fc.letrec((tie) => ({
  value: fc.oneof(
    { depthSize: 'small', withCrossShrink: true },
    fc.jsonValue({ maxDepth: 0 }),
    tricky,
    fc.array(tie('value'), { maxLength: 5 }),
    fc.dictionary(fc.oneof(tricky, fc.string()), tie('value'), { maxKeys: 5 }),
  ),
})).value;

/** What may follow a value in JSON text: a delimiter or white space, then anything. */
const follower = fc
  .tuple(fc.constantFrom('', ',', ']', '}', ' ', '\n', '\t'), tricky)
  .map(([first, rest]) => (first === '' ? '' : first + rest));

/** Checks, member by member, that each skip ends where JSON.parse says the member's text ends. */
function checkMembers(text: string, start: number, parsed: unknown): void {
  const open = text.charCodeAt(start);
  if (open !== 0x5b && open !== 0x7b) return;
  const items = Array.isArray(parsed) ? parsed : Object.values(parsed as object);
  let i = skipJsonSpace(text, start + 1);
  for (let k = 0; text.charCodeAt(i) !== 0x5d && text.charCodeAt(i) !== 0x7d; k++) {
    if (open === 0x7b) {
      const keyEnd = skipJsonValue(text, i);
      JSON.parse(text.slice(i, keyEnd));
      i = skipJsonSpace(text, skipJsonSpace(text, keyEnd) + 1);
    }
    const end = skipJsonValue(text, i);
    // Duplicate keys are not generated (a dictionary), so the k-th member is the k-th value.
    expect(JSON.parse(text.slice(i, end))).toEqual(items[k]);
    checkMembers(text, i, items[k]);
    i = skipJsonSpace(text, end);
    if (text.charCodeAt(i) === 0x2c) i = skipJsonSpace(text, i + 1);
  }
}

describe('skipJsonValue agrees with JSON.parse', () => {
  it('ends each value where its text ends', () => {
    fc.assert(
      fc.property(value, fc.constantFrom(0, 2), follower, (v, indent, after) => {
        const written = JSON.stringify(v, null, indent);
        const text = written + after;
        const end = skipJsonValue(text, 0);
        expect(end).toBe(written.length);
        // Compared with what JSON.parse reads of the value's own text (`-0` is written `0`).
        const parsed: unknown = JSON.parse(written);
        expect(JSON.parse(text.slice(0, end))).toEqual(parsed);
        checkMembers(text, 0, parsed);
      }),
      { numRuns: 500 },
    );
  });

  it('says the text ended for every cut short string, array or object', () => {
    fc.assert(
      fc.property(value, fc.nat(), (v, at) => {
        const written = JSON.stringify(v);
        const first = written.charCodeAt(0);
        fc.pre(first === 0x22 || first === 0x5b || first === 0x7b);
        expect(skipJsonValue(written.slice(0, 1 + (at % (written.length - 1))), 0)).toBe(-1);
      }),
      { numRuns: 500 },
    );
  });

  it('ends an array or object in pieces, of text or of UTF-8 bytes, where it ends whole', () => {
    fc.assert(
      fc.property(
        value.filter((v) => typeof v === 'object' && v !== null),
        fc.array(fc.integer({ min: 1, max: 9 }), { minLength: 1, maxLength: 20 }),
        fc.boolean(),
        (v, sizes, asBytes) => {
          const written = JSON.stringify(v);
          const whole: string | Uint8Array = asBytes ? new TextEncoder().encode(written) : written;
          const state: JsonSkipState = { depth: 1, inString: false, escaped: false };
          let at = 1;
          let end = -1;
          for (let k = 0; end === -1 && at < whole.length; k++) {
            const size = sizes[k % sizes.length]!;
            const piece = whole.slice(at, at + size);
            const stop = skipNested(piece, 0, state);
            if (state.depth === 0) end = at + stop;
            at += size;
          }
          expect(end).toBe(whole.length);
        },
      ),
      { numRuns: 500 },
    );
  });
});
