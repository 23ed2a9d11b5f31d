import { describe, expect, it } from 'vitest';
import { backoffDelay, type ResolvedBackoffOptions, resolveBackoff } from './backoff.js';

const DEFAULTS: ResolvedBackoffOptions = Object.freeze({
  strategy: 'exponential',
  delay: 500,
  maxDelay: 30_000,
  jitter: 0.5,
  maxAttempts: Number.POSITIVE_INFINITY,
});

const resolve = (options: Parameters<typeof resolveBackoff>[0]) =>
  resolveBackoff(options, DEFAULTS, 'retry');

describe('backoff delays', () => {
  it('doubles up to the cap without jitter', () => {
    const options = resolve({ delay: 100, maxDelay: 1000, jitter: 0 });
    expect([1, 2, 3, 4, 5, 6].map((n) => backoffDelay(n, options))).toEqual([
      100, 200, 400, 800, 1000, 1000,
    ]);
  });

  it('keeps a fixed delay', () => {
    const options = resolve({ strategy: 'fixed', delay: 70, jitter: 0 });
    expect([1, 5, 50].map((n) => backoffDelay(n, options))).toEqual([70, 70, 70]);
  });

  it('takes at most the jitter share off, never adds', () => {
    const options = resolve({ delay: 1000, jitter: 0.5 });
    expect(backoffDelay(1, options, () => 0)).toBe(1000);
    expect(backoffDelay(1, options, () => 0.999999)).toBeCloseTo(500, 2);
    for (let i = 0; i < 100; i++) {
      const d = backoffDelay(3, options);
      expect(d).toBeGreaterThan(2000 - 1);
      expect(d).toBeLessThanOrEqual(4000);
    }
  });

  it('fills the defaults given and refuses bad values, naming the option', () => {
    expect(resolve({})).toEqual(DEFAULTS);
    expect(resolve({ delay: 60_000 }).maxDelay).toBe(60_000);
    expect(() => resolve({ jitter: 2 })).toThrow('retry: jitter must be between 0 and 1');
    expect(() => resolve({ delay: -1 })).toThrow('retry: delay must be >= 0');
    expect(() => resolve({ maxDelay: -1 })).toThrow(RangeError);
    expect(() => resolve({ maxAttempts: Number.NaN })).toThrow('retry: maxAttempts must be >= 0');
  });

  it('checks the names when asked: one shape for reconnect, respawn and retry', () => {
    // Unchecked (the caller checks its own options): an unknown name is left alone.
    expect(resolveBackoff({ initialDelay: 5 } as never, DEFAULTS, 'reconnect').delay).toBe(
      DEFAULTS.delay,
    );
    expect(() =>
      resolveBackoff({ initialDelay: 5 } as never, DEFAULTS, 'reconnect', {
        initialDelay: 'delay',
      }),
    ).toThrow(new TypeError('reconnect: unknown option "initialDelay" (renamed: use delay)'));
    expect(() => resolveBackoff({ retries: 5 } as never, DEFAULTS, 'respawn', {})).toThrow(
      new TypeError('respawn: unknown option "retries"'),
    );
    expect(
      resolveBackoff(
        { maxQueue: 5, delay: 7 } as never,
        DEFAULTS,
        'respawn',
        {},
        { maxQueue: true },
      ).delay,
    ).toBe(7);
  });
});
