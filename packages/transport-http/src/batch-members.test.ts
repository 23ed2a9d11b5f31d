import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { batchMembers } from './batch-members.js';

describe('batchMembers', () => {
  it('cuts members out as written, big ids and nested brackets in strings included', () => {
    const a = '{"jsonrpc":"2.0","id":9007199254740993,"result":{"s":"],[{\\"x"}}';
    const b = '{"jsonrpc":"2.0","id":2,"result":[1,[2]]}';
    expect(batchMembers(`[${a},${b}]`)).toEqual([a, b]);
    expect(batchMembers(` [ ${a} ,\n ${b} ] `)).toEqual([a, b]);
  });

  it('handles one member, scalars and an empty array', () => {
    expect(batchMembers('[{"id":1}]')).toEqual(['{"id":1}']);
    expect(batchMembers('[1, "a,b", null]')).toEqual(['1', '"a,b"', 'null']);
    expect(batchMembers('[]')).toEqual([]);
  });

  it('matches JSON.parse on members that survive it', () => {
    const members = [{ a: [1, { b: '}' }] }, 'x"y', 3.5, [], {}];
    const text = JSON.stringify(members);
    expect(batchMembers(text).map((m) => JSON.parse(m))).toEqual(members);
  });

  it('property: any JSON array comes back member by member, escapes and backslashes included', () => {
    const text = fc.string({ unit: fc.constantFrom('\\', '"', ',', ']', '[', '{', '}', 'a', 'é') });
    const member = fc.oneof(fc.jsonValue(), text, fc.array(text), fc.dictionary(text, text));
    fc.assert(
      fc.property(fc.array(member), fc.constantFrom('', ' ', '\n  '), (values, blank) => {
        const written = `[${blank}${values.map((v) => JSON.stringify(v)).join(`${blank},${blank}`)}${blank}]`;
        expect(batchMembers(written)).toEqual(values.map((v) => JSON.stringify(v)));
      }),
      { numRuns: 2000 },
    );
  });
});
