import { afterEach, describe, expect, it, vi } from 'vitest';
import { createDeadlines } from './deadlines.js';

afterEach(() => {
  vi.useRealTimers();
});

describe('createDeadlines', () => {
  it('expires each deadline once, within a quarter of the timeout, and skips removed ones', () => {
    vi.useFakeTimers();
    const deadlines = createDeadlines(1000);
    const expired: string[] = [];
    const a = { at: Date.now() + 1000, expire: () => expired.push('a') };
    const b = { at: Date.now() + 1000, expire: () => expired.push('b') };
    const c = { at: Date.now() + 3000, expire: () => expired.push('c') };
    deadlines.add(a);
    deadlines.add(b);
    deadlines.add(c);
    deadlines.delete(b);
    vi.advanceTimersByTime(999);
    expect(expired).toEqual([]);
    vi.advanceTimersByTime(250);
    expect(expired).toEqual(['a']);
    vi.advanceTimersByTime(2000);
    expect(expired).toEqual(['a', 'c']);
  });

  it('runs no timer while nothing waits', () => {
    vi.useFakeTimers();
    const deadlines = createDeadlines(100);
    expect(vi.getTimerCount()).toBe(0);
    const entry = { at: Date.now() + 100, expire: () => {} };
    deadlines.add(entry);
    expect(vi.getTimerCount()).toBe(1);
    deadlines.delete(entry);
    vi.advanceTimersByTime(25);
    expect(vi.getTimerCount()).toBe(0);
  });
});
