import { describe, expect, it } from 'vitest';
import { jsonEqual, rawElements, rawMembers, sameRawId, short } from './raw-json.js';

describe('sameRawId', () => {
  it('compares numbers by their exact decimal value, every digit counting', () => {
    expect(sameRawId('9007199254740993', '9007199254740993')).toBe(true);
    expect(sameRawId('9007199254740993', '9007199254740992')).toBe(false);
    expect(sameRawId('-9007199254740993', '-9007199254740992')).toBe(false);
    expect(sameRawId('123456789012345678901234567890', '1.2345678901234568e+29')).toBe(false);
    expect(sameRawId('1.5', '1.50')).toBe(true);
    expect(sameRawId('1.5', '15e-1')).toBe(true);
    expect(sameRawId('1.5', '1')).toBe(false);
    expect(sameRawId('100', '1e2')).toBe(true);
    expect(sameRawId('0', '-0')).toBe(true);
    expect(sameRawId('1', '"1"')).toBe(false);
  });

  it('compares strings by value and null as itself', () => {
    expect(sameRawId('"A"', '"\\u0041"')).toBe(true);
    expect(sameRawId('"1"', '1')).toBe(false);
    expect(sameRawId('null', 'null')).toBe(true);
    expect(sameRawId('null', '"null"')).toBe(false);
  });
});

describe('rawMembers and rawElements', () => {
  it('keep each member and element as its source text, at any depth', () => {
    const text = ' { "id" : 9007199254740993 , "s":"}],\\"{[" ,"deep":[[{"a":[1]}]],"n":null } ';
    const { members, duplicates } = rawMembers(text)!;
    expect([...members]).toEqual([
      ['id', '9007199254740993'],
      ['s', '"}],\\"{["'],
      ['deep', '[[{"a":[1]}]]'],
      ['n', 'null'],
    ]);
    expect(duplicates).toEqual([]);
    expect(rawElements('[ 1 , {"a":"]"} ,[2,3],"x" ]')).toEqual(['1', '{"a":"]"}', '[2,3]', '"x"']);
    expect(rawElements('[]')).toEqual([]);
  });

  it('report duplicated names and refuse the wrong kind of value', () => {
    expect(rawMembers('{"id":1,"id":2}')).toEqual({
      members: new Map([['id', '2']]),
      duplicates: ['id'],
    });
    expect(rawMembers('[1]')).toBeUndefined();
    expect(rawElements('{}')).toBeUndefined();
  });

  it('walk 100000 levels of nesting without recursion', () => {
    const deep = `${'['.repeat(100_000)}${']'.repeat(100_000)}`;
    expect(rawMembers(`{"params":${deep},"id":1}`)!.members.get('id')).toBe('1');
  });
});

describe('jsonEqual and short', () => {
  it('compare JSON values, member order aside', () => {
    expect(jsonEqual({ a: [1, { b: null }] }, { a: [1, { b: null }] })).toBe(true);
    expect(jsonEqual({ a: 1, b: 2 }, { b: 2, a: 1 })).toBe(true);
    expect(jsonEqual(['hello', 5], ['hello', '5'])).toBe(false);
    expect(jsonEqual({ a: 1 }, { a: 1, b: undefined })).toBe(false);
    expect(jsonEqual([1], { 0: 1 })).toBe(false);
  });

  it('shortens long text to one line', () => {
    expect(short('a\n  b', 10)).toBe('a b');
    expect(short('x'.repeat(20), 10)).toBe(`${'x'.repeat(9)}…`);
  });
});
