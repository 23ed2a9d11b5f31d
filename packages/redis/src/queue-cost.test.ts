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

describe.skipIf(skipReason !== undefined)('queue transport cost, counted', () => {
  const redis = useRedisServer();

  it('answers by script hash (the script is sent once) and arms no timer per command', async () => {
    const server = createServer();
    server.method('add', ([a, b]: [number, number]) => a + b);
    const options = { url: redis.url, queue: 'q-cost', blockMs: 100 };
    await using connection = server.connect(createRedisQueueWorkerTransport(options));
    await using client = createClient(createRedisQueueClientTransport(options));
    expect(await client.request('add', [1, 2])).toBe(3); // loads the script
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
    const after = await commandCalls(redis.url);
    expect((after.evalsha ?? 0) - (before.evalsha ?? 0)).toBe(50);
    expect((after.eval ?? 0) - (before.eval ?? 0)).toBe(0);
    expect(connection).toBeDefined();
  });
});
