// The queue's cost per call, counted: what Redis runs for an answer, and the timers the client
// library would arm per command.
import { createClient } from '@jsonrpc-kit/client';
import { createServer } from '@jsonrpc-kit/server';
import { createClient as createRedisClient } from '@redis/client';
import { describe, expect, it, vi } from 'vitest';
import { skipReason, useRedisServer } from '../test/redis-server.js';
import { createRedisQueueClientTransport } from './queue-client-transport.js';
import { createRedisQueueWorkerTransport } from './queue-worker-transport.js';

/** `calls` of each command Redis ran, from `INFO commandstats`. */
async function commandCalls(url: string): Promise<Record<string, number>> {
  const redis = createRedisClient({ url });
  await redis.connect();
  try {
    const info = String(await redis.sendCommand(['INFO', 'commandstats']));
    const out: Record<string, number> = {};
    for (const match of info.matchAll(/cmdstat_(\w+):calls=(\d+)/g))
      out[match[1]!] = Number(match[2]);
    return out;
  } finally {
    redis.destroy();
  }
}

/** How many entries of `queue` the group `group` has delivered and not seen acknowledged. */
async function pendingCount(url: string, queue: string, group: string): Promise<number> {
  const redis = createRedisClient({ url });
  await redis.connect();
  try {
    const summary = (await redis.sendCommand(['XPENDING', queue, group])) as unknown[];
    return Number(summary[0]);
  } finally {
    redis.destroy();
  }
}

describe.skipIf(skipReason !== undefined)('queue transport cost, counted', () => {
  const redis = useRedisServer();

  it('answers with one XADD each, acknowledges and renews the reply stream once a turn, arms no timer per command', async () => {
    const server = createServer();
    server.method('add', ([a, b]: [number, number]) => a + b);
    const options = { url: redis.url, queue: 'q-cost', blockMs: 100 };
    const connection = server.connect(
      createRedisQueueWorkerTransport({ ...options, group: 'g-cost' }),
    );
    await using client = createClient(createRedisQueueClientTransport(options));
    expect(await client.request('add', [1, 2])).toBe(3);
    const before = await commandCalls(redis.url);
    const timers = vi.spyOn(AbortSignal, 'timeout');
    try {
      const sums = await Promise.all(
        Array.from({ length: 50 }, (_, i) => client.request('add', [i, 1])),
      );
      expect(sums).toEqual(Array.from({ length: 50 }, (_, i) => i + 1));
      expect(timers).not.toHaveBeenCalled();
    } finally {
      timers.mockRestore();
    }
    // Closing sends what is left to acknowledge before the connection goes: nothing stays
    // pending to be answered a second time.
    await connection.close();
    const after = await commandCalls(redis.url);
    const ran = (name: string): number => (after[name] ?? 0) - (before[name] ?? 0);
    expect(ran('xadd')).toBe(100); // 50 requests, 50 answers
    expect(ran('evalsha') + ran('eval')).toBe(0);
    expect(ran('xack')).toBeGreaterThanOrEqual(1);
    expect(ran('xack')).toBeLessThan(25);
    expect(ran('expire')).toBeGreaterThanOrEqual(1);
    expect(ran('expire')).toBeLessThan(25);
    expect(await pendingCount(redis.url, 'q-cost', 'g-cost')).toBe(0);
  });
  it('closing a worker while an answer is on its way: the answer arrives, its request is acknowledged', async () => {
    const options = { url: redis.url, queue: 'q-close', blockMs: 100 };
    const group = 'g-close';
    const admin = createRedisClient({ url: redis.url });
    await admin.connect();
    try {
      const server = createServer();
      let handled!: () => void;
      const running = new Promise<void>((resolve) => (handled = resolve));
      server.method('add', async ([a, b]: [number, number]) => {
        // Redis holds every write for a while: the answer leaves the worker, unconfirmed.
        await admin.sendCommand(['CLIENT', 'PAUSE', '300', 'WRITE']);
        handled();
        return a + b;
      });
      const connection = server.connect(createRedisQueueWorkerTransport({ ...options, group }));
      await using client = createClient(createRedisQueueClientTransport(options));
      const sum = client.request('add', [1, 2], { timeout: 5000 });
      await running;
      await new Promise((resolve) => setTimeout(resolve, 50)); // the answer has been sent
      await connection.close();
      expect(await sum).toBe(3);
      expect(await pendingCount(redis.url, 'q-close', 'g-close')).toBe(0);
    } finally {
      admin.destroy();
    }
  });
});
