import { afterEach, describe, expect, it, vi } from 'vitest';
import { DEFAULT_MAX_RECONNECT_DELAY, reconnectDelay } from './connection.js';

afterEach(() => {
  vi.restoreAllMocks();
});

describe('the reconnect backoff (core backoffDelay)', () => {
  it('doubles from 50 ms to the cap, with up to half taken off at random', () => {
    vi.spyOn(Math, 'random').mockReturnValue(0);
    expect([0, 1, 2, 3, 4, 5, 6, 30].map(reconnectDelay)).toEqual([
      50,
      100,
      200,
      400,
      800,
      1600,
      DEFAULT_MAX_RECONNECT_DELAY,
      DEFAULT_MAX_RECONNECT_DELAY,
    ]);
    vi.spyOn(Math, 'random').mockReturnValue(0.999_999);
    expect([0, 1, 30].map(reconnectDelay)).toEqual([25, 50, DEFAULT_MAX_RECONNECT_DELAY / 2]);
  });
});
