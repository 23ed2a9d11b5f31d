import { describe, expect, it } from 'vitest';
import { RecentKeys } from './recent-keys.js';

describe('RecentKeys', () => {
  it('remembers the last `limit` distinct keys, in the order they came', () => {
    const keys = new RecentKeys<number | string>(3);
    for (const key of [1, 2, 3]) keys.add(key);
    keys.add(2); // already remembered: keeps its place, forgets nothing
    expect([1, 2, 3].map((k) => keys.has(k))).toEqual([true, true, true]);
    keys.add(4);
    expect([1, 2, 3, 4].map((k) => keys.has(k))).toEqual([false, true, true, true]);
    keys.add('2'); // a string is not the number
    expect([2, 3, 4, '2'].map((k) => keys.has(k))).toEqual([false, true, true, true]);
    expect(keys.size).toBe(3);
  });

  it('stays right through many evictions (the order is cut down again and again)', () => {
    const keys = new RecentKeys<number>(100);
    for (let i = 0; i < 10_000; i++) keys.add(i);
    expect(keys.size).toBe(100);
    expect(keys.has(9_899)).toBe(false);
    for (let i = 9_900; i < 10_000; i++) expect(keys.has(i)).toBe(true);
  });

  it('with a limit of 0 remembers nothing; clear() forgets everything', () => {
    const none = new RecentKeys<number>(0);
    none.add(1);
    expect(none.has(1)).toBe(false);
    const keys = new RecentKeys<number>(2);
    keys.add(1);
    keys.clear();
    expect(keys.has(1)).toBe(false);
    keys.add(2);
    keys.add(3);
    keys.add(4);
    expect([2, 3, 4].map((k) => keys.has(k))).toEqual([false, true, true]);
  });
});
