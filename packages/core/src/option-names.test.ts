import { describe, expect, it } from 'vitest';
import { checkOptionNames } from './engine.js';

describe('checkOptionNames', () => {
  it('passes known names and refuses the first unknown one', () => {
    expect(() => checkOptionNames('f', { a: 1, b: undefined }, { a: true, b: true })).not.toThrow();
    expect(() => checkOptionNames('f', undefined, { a: true })).not.toThrow();
    expect(() => checkOptionNames('f', { a: 1, c: 2 }, { a: true })).toThrow(
      new TypeError('f: unknown option "c"'),
    );
  });

  it('names what replaced a renamed option, and ignores inherited names', () => {
    expect(() => checkOptionNames('f', { old: 1 }, { now: true }, { old: 'now' })).toThrow(
      new TypeError('f: unknown option "old" (renamed: use now)'),
    );
    const inherited = Object.create({ stray: 1 }) as object;
    expect(() => checkOptionNames('f', inherited, { a: true })).not.toThrow();
  });
});
