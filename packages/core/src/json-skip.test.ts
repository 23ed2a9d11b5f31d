import { describe, expect, it } from 'vitest';
import {
  continueString,
  type JsonSkipState,
  jsonSkipSteps,
  skipJsonSpace,
  skipJsonString,
  skipJsonValue,
  skipNested,
} from './json-skip.js';

describe('skipJsonValue', () => {
  it('finds the end of each kind of value', () => {
    expect(skipJsonValue('"a\\"b",1', 0)).toBe(6);
    expect(skipJsonValue('"a\\\\",1', 0)).toBe(5);
    expect(skipJsonValue('[{"a":"]"},2] ,3', 0)).toBe(13);
    expect(skipJsonValue('{"a":{"b":["}"]}}x', 0)).toBe(17);
    expect(skipJsonValue('12 ,3', 0)).toBe(2);
    expect(skipJsonValue('-1.5e3}', 0)).toBe(6);
    expect(skipJsonValue('true', 0)).toBe(4);
    expect(skipJsonValue('[1,[null]]', 3)).toBe(9);
  });

  it('says -1 when the text ends inside a string, array or object', () => {
    expect(skipJsonValue('"abc', 0)).toBe(-1);
    expect(skipJsonValue('"abc\\"', 0)).toBe(-1);
    expect(skipJsonValue('[1,"]"', 0)).toBe(-1);
    expect(skipJsonValue('{"a":{}', 0)).toBe(-1);
    expect(skipJsonString('"\\\\\\"', 0)).toBe(-1);
  });

  it('skips white space', () => {
    expect(skipJsonSpace(' \t\r\n[', 0)).toBe(4);
    expect(skipJsonSpace('  ', 0)).toBe(2);
    expect(skipJsonSpace('x', 0)).toBe(0);
  });
});

describe('skipNested and continueString, a value in pieces', () => {
  const state = (): JsonSkipState => ({ depth: 1, inString: false, escaped: false });

  it('carries an open string and an escape over a piece boundary', () => {
    const s = state();
    // `[` already read; then `"a\` | `"]` | `"]`, `]`
    expect(skipNested('"a\\', 0, s)).toBe(3);
    expect(s).toEqual({ depth: 1, inString: true, escaped: true });
    expect(skipNested('"]"', 0, s)).toBe(3);
    expect(s).toEqual({ depth: 1, inString: false, escaped: false });
    expect(skipNested(']x', 0, s)).toBe(1);
    expect(s.depth).toBe(0);
  });

  it('reads UTF-8 bytes as it reads text', () => {
    const bytes = new TextEncoder().encode('[{"é":"\\"ü"}]');
    const s = state();
    expect(skipNested(bytes.subarray(0, -1), 1, s)).toBe(bytes.length - 1);
    expect(s.depth).toBe(1);
    expect(skipNested(bytes, bytes.length - 1, s)).toBe(bytes.length);
    expect(s.depth).toBe(0);
  });

  it('continues a string to its closing quote', () => {
    const s: JsonSkipState = { depth: 0, inString: true, escaped: false };
    expect(continueString('ab\\\\"cd', 0, s)).toBe(5);
    expect(continueString('ab\\', 0, s)).toBe(-1);
    expect(s.escaped).toBe(true);
    expect(continueString('"x"', 0, s)).toBe(3);
  });
});

describe('skipJsonValue: linear in the text skipped', () => {
  /** Characters read to skip the value `text` (in pieces of `piece` characters when given). */
  const stepsOf = (text: string, piece?: number): number => {
    const before = jsonSkipSteps();
    if (piece === undefined) {
      expect(skipJsonValue(text, 0)).toBe(text.length);
    } else {
      const s: JsonSkipState = { depth: 1, inString: false, escaped: false };
      let end = -1;
      for (let at = 1; at < text.length && end === -1; at += piece) {
        const chunk = text.slice(at, at + piece);
        const stop = skipNested(chunk, 0, s);
        if (s.depth === 0) end = at + stop;
      }
      expect(end).toBe(text.length);
    }
    return jsonSkipSteps() - before;
  };

  const shapes: Record<string, (n: number) => string> = {
    'deep nesting': (n) => '['.repeat(n) + ']'.repeat(n),
    'a run of backslashes': (n) => `["${'\\\\'.repeat(n)}"]`,
    'escaped quotes': (n) => `["${'\\"'.repeat(n)}"]`,
    'backslash runs before escaped quotes': (n) => `["${'\\\\\\"'.repeat(n)}"]`,
    'many short strings': (n) => `[${Array.from({ length: n }, () => '"a\\\\"').join(',')}]`,
    'objects in arrays': (n) =>
      `[${Array.from({ length: n }, (_, i) => `{"k":[${i},"}"]}`).join(',')}]`,
  };

  for (const [name, make] of Object.entries(shapes)) {
    it(`${name}: the same few steps a character, whole or in pieces, at any size`, () => {
      for (const piece of [undefined, 1, 7]) {
        const small = make(2000);
        const large = make(8000);
        const perChar = (text: string): number => stepsOf(text, piece) / text.length;
        const a = perChar(small);
        const b = perChar(large);
        expect(a).toBeGreaterThan(0);
        // A character is read at most a few times (by the structure loop or indexOf, by a backslash
        // count, once more where a piece ends); a quadratic skip reads the large text 16 times as
        // often as the small, 4 times as often per character.
        expect(a).toBeLessThanOrEqual(piece === 1 ? 5 : 3);
        expect(b).toBeLessThanOrEqual(a * 1.05);
      }
    });
  }
});
