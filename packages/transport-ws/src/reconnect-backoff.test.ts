import { createServer } from 'node:net';
import * as core from '@jsonrpc-kit/core/engine';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { DEFAULT_RECONNECT } from './backoff.js';
import { createWebSocketTransport } from './client-transport.js';

// Core's helper, watched: the reconnect delays must be the ones it computes.
vi.mock('@jsonrpc-kit/core/engine', async (importOriginal) => {
  const actual = await importOriginal<typeof import('@jsonrpc-kit/core/engine')>();
  return { ...actual, backoffDelay: vi.fn(actual.backoffDelay) };
});

afterEach(() => {
  vi.restoreAllMocks();
  vi.mocked(core.backoffDelay).mockClear();
});

/** A port on 127.0.0.1 where nothing listens (it was free a moment ago). */
async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

describe('createWebSocketTransport reconnect backoff', () => {
  it("waits before each attempt what core's backoffDelay computes, once per attempt", async () => {
    const timers = vi.spyOn(globalThis, 'setTimeout');
    const t = createWebSocketTransport({
      url: `ws://127.0.0.1:${await closedPort()}/`,
      reconnect: { delay: 1, maxDelay: 3, jitter: 0.5, maxAttempts: 3 },
      heartbeat: false,
    });
    await expect(t.start({ onMessage() {}, onClose() {} })).rejects.toThrow(
      'Gave up reconnecting after 3 attempts',
    );
    const helper = vi.mocked(core.backoffDelay);
    // Three failed attempts in a row: the helper was asked for attempts 1, 2 and 3, once each.
    expect(helper.mock.calls.map(([attempt]) => attempt)).toEqual([1, 2, 3]);
    for (const [, policy] of helper.mock.calls) {
      expect(policy).toEqual({ ...DEFAULT_RECONNECT, delay: 1, maxDelay: 3, maxAttempts: 3 });
    }
    // Each wait is the helper's answer (random within the jitter, so unmistakable).
    const waits = helper.mock.results.map((result) => result.value as number);
    const delays = timers.mock.calls.map((args) => args[1]);
    for (const wait of waits) expect(delays).toContain(wait);
    await t.close();
  });
});
