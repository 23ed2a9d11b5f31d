import * as core from '@jsonrpc-kit/core/engine';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { recorder } from '../test/helpers.js';
import { DEFAULT_RESPAWN } from './respawn.js';
import { spawnTransport } from './spawn-transport.js';

// Core's helper, watched: the respawn delays must be the ones it computes.
vi.mock('@jsonrpc-kit/core/engine', async (importOriginal) => {
  const actual = await importOriginal<typeof import('@jsonrpc-kit/core/engine')>();
  return { ...actual, backoffDelay: vi.fn(actual.backoffDelay) };
});

afterEach(() => {
  vi.restoreAllMocks();
  vi.mocked(core.backoffDelay).mockClear();
});

describe('spawnTransport respawn backoff', () => {
  it("waits before each new child what core's backoffDelay computes, once per attempt", async () => {
    const timers = vi.spyOn(globalThis, 'setTimeout');
    const t = spawnTransport(process.execPath, ['-e', 'process.exit(3)'], {
      stderr: 'ignore',
      respawn: { delay: 1, maxDelay: 3, jitter: 0.5, maxAttempts: 3 },
    });
    const rec = recorder();
    await t.start(rec);
    await rec.closed();
    await t.exit;
    const helper = vi.mocked(core.backoffDelay);
    // Three children died in a row after the first: attempts 1, 2 and 3, each asked once.
    expect(helper.mock.calls.map(([attempt]) => attempt)).toEqual([1, 2, 3]);
    for (const [, policy] of helper.mock.calls) {
      expect(policy).toEqual({
        ...DEFAULT_RESPAWN,
        delay: 1,
        maxDelay: 3,
        jitter: 0.5,
        maxAttempts: 3,
      });
    }
    // Each wait is the helper's answer (random within the jitter, so unmistakable).
    const waits = helper.mock.results.map((result) => result.value as number);
    const delays = timers.mock.calls.map((args) => args[1]);
    for (const wait of waits) expect(delays).toContain(wait);
  });
});
