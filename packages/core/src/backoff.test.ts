import { describe, expect, it } from 'vitest';
import { DEFAULT_RECONNECT, reconnectDelay, resolveReconnect } from './backoff.js';

describe('reconnect delays', () => {
  it('doubles up to the cap without jitter', () => {
    const options = resolveReconnect({ delay: 100, maxDelay: 1000, jitter: 0 });
    expect([1, 2, 3, 4, 5, 6].map((n) => reconnectDelay(n, options))).toEqual([
      100, 200, 400, 800, 1000, 1000,
    ]);
  });

  it('keeps a fixed delay', () => {
    const options = resolveReconnect({ strategy: 'fixed', delay: 70, jitter: 0 });
    expect([1, 5, 50].map((n) => reconnectDelay(n, options))).toEqual([70, 70, 70]);
  });

  it('takes at most the jitter share off, never adds', () => {
    const options = resolveReconnect({ delay: 1000, jitter: 0.5 });
    expect(reconnectDelay(1, options, () => 0)).toBe(1000);
    expect(reconnectDelay(1, options, () => 0.999999)).toBeCloseTo(500, 2);
    for (let i = 0; i < 100; i++) {
      const d = reconnectDelay(3, options);
      expect(d).toBeGreaterThan(2000 - 1);
      expect(d).toBeLessThanOrEqual(4000);
    }
  });

  it('fills defaults and refuses bad values', () => {
    expect(resolveReconnect({})).toEqual(DEFAULT_RECONNECT);
    expect(resolveReconnect({ delay: 60_000 }).maxDelay).toBe(60_000);
    expect(() => resolveReconnect({ jitter: 2 })).toThrow(RangeError);
    expect(() => resolveReconnect({ delay: -1 })).toThrow(RangeError);
    expect(() => resolveReconnect({ maxAttempts: Number.NaN })).toThrow(RangeError);
    expect(Object.isFrozen(DEFAULT_RECONNECT)).toBe(true);
  });
});
