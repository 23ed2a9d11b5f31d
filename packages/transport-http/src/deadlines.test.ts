import { afterEach, describe, expect, it, vi } from 'vitest';
import { type Deadline, Deadlines } from './deadlines.js';

afterEach(() => {
  vi.useRealTimers();
});

function entry(name: string, expired: string[]): Deadline {
  return { due: -1, prev: undefined, next: undefined, expire: () => expired.push(name) };
}

describe('Deadlines', () => {
  it('expires each deadline once, within a quarter of the timeout, and skips removed ones', () => {
    vi.useFakeTimers();
    const deadlines = new Deadlines(1000);
    const expired: string[] = [];
    const [a, b, c] = [entry('a', expired), entry('b', expired), entry('c', expired)];
    deadlines.add(a);
    deadlines.add(b);
    deadlines.delete(b);
    deadlines.delete(b);
    expect(deadlines.size).toBe(1);
    vi.advanceTimersByTime(999);
    expect(expired).toEqual([]);
    vi.advanceTimersByTime(251);
    expect(expired).toEqual(['a']);
    deadlines.add(c);
    expect(deadlines.size).toBe(1);
    vi.advanceTimersByTime(999);
    expect(expired).toEqual(['a']);
    vi.advanceTimersByTime(251);
    expect(expired).toEqual(['a', 'c']);
    expect(deadlines.size).toBe(0);
  });

  it('keeps the rest linked when one in the middle, the first or the last is removed', () => {
    vi.useFakeTimers();
    const deadlines = new Deadlines(100);
    const expired: string[] = [];
    const all = ['a', 'b', 'c', 'd', 'e'].map((name) => entry(name, expired));
    for (const one of all) deadlines.add(one);
    deadlines.delete(all[2]!);
    deadlines.delete(all[0]!);
    deadlines.delete(all[4]!);
    vi.advanceTimersByTime(125);
    expect(expired).toEqual(['b', 'd']);
    // A removed deadline can be added again.
    deadlines.add(all[0]!);
    vi.advanceTimersByTime(125);
    expect(expired).toEqual(['b', 'd', 'a']);
  });

  it('never expires a deadline before its timeout, whenever it was added', () => {
    vi.useFakeTimers();
    const deadlines = new Deadlines(100);
    const expired: string[] = [];
    const keep = entry('keep', expired);
    deadlines.add(keep);
    for (let offset = 1; offset < 25; offset += 3) {
      vi.advanceTimersByTime(3);
      const one = entry(`at ${offset}`, expired);
      deadlines.add(one);
      vi.advanceTimersByTime(99);
      expect(expired).not.toContain(`at ${offset}`);
      vi.advanceTimersByTime(26);
      expect(expired).toContain(`at ${offset}`);
    }
  });

  it('runs no timer while nothing waits', () => {
    vi.useFakeTimers();
    const deadlines = new Deadlines(100);
    expect(vi.getTimerCount()).toBe(0);
    const one = entry('one', []);
    deadlines.add(one);
    expect(vi.getTimerCount()).toBe(1);
    deadlines.delete(one);
    vi.advanceTimersByTime(25);
    expect(vi.getTimerCount()).toBe(0);
  });
});
