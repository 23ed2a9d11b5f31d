import { AbortError, createMemoryTransportPair, TimeoutError } from '@jsonrpc-kit/core';
import { describe, expect, it } from 'vitest';
import { createClient } from './index.js';

const CALLS = 100_000;
/** Generous: building 100k errors and abort events is slow on small machines. */
const LIMIT = 120_000;
const BATCHED = 10_000;

function setup(options: Parameters<typeof createClient>[1] = {}) {
  const [clientSide, peerSide] = createMemoryTransportPair();
  let received = 0;
  void peerSide.start({
    onMessage: () => {
      received++;
    },
    onClose() {},
  });
  const errors: Error[] = [];
  const client = createClient(clientSide, { onError: (e) => errors.push(e), ...options });
  return { client, errors, received: () => received };
}

describe('no leaks', () => {
  it(
    `${CALLS} aborted calls leave nothing pending`,
    async () => {
      const { client, errors, received } = setup({ sendCancel: true });
      const calls: Promise<unknown>[] = [];
      for (let i = 0; i < CALLS; i++) {
        const controller = new AbortController();
        calls.push(client.request('m', [i], { signal: controller.signal }));
        controller.abort();
      }
      const settled = await Promise.allSettled(calls);
      expect(settled.every((r) => r.status === 'rejected' && r.reason instanceof AbortError)).toBe(
        true,
      );
      expect(client.pending).toBe(0);
      await new Promise((resolve) => setTimeout(resolve, 0));
      expect(received()).toBe(CALLS * 2); // each call and its cancel notification
      expect(errors).toEqual([]);
      await client.close();
    },
    LIMIT,
  );

  it(
    `${CALLS} timed-out calls leave nothing pending`,
    async () => {
      const { client, errors } = setup({ callTimeout: 1 });
      const calls: Promise<unknown>[] = [];
      for (let i = 0; i < CALLS; i++) calls.push(client.request('m'));
      const settled = await Promise.allSettled(calls);
      expect(
        settled.every((r) => r.status === 'rejected' && r.reason instanceof TimeoutError),
      ).toBe(true);
      expect(client.pending).toBe(0);
      expect(errors).toEqual([]);
      await client.close();
    },
    LIMIT,
  );

  it(
    `${BATCHED} auto-batched calls aborted in flight leave nothing pending`,
    async () => {
      const { client } = setup({ batch: { maxSize: 50 }, sendCancel: true });
      const controllers: AbortController[] = [];
      const calls: Promise<unknown>[] = [];
      for (let i = 0; i < BATCHED; i++) {
        const controller = new AbortController();
        controllers.push(controller);
        calls.push(client.request('m', undefined, { signal: controller.signal }));
      }
      await new Promise((resolve) => setTimeout(resolve, 0));
      for (const controller of controllers) controller.abort();
      await Promise.allSettled(calls);
      expect(client.pending).toBe(0);
      await client.close();
    },
    LIMIT,
  );
});
