// A close never waits for ever on a peer that stopped answering: Redis replaced on its port by a
// process that accepts connections and never replies (a hung server, a wrong service).
import { createServer, type Server, type Socket } from 'node:net';
import { createClient } from '@jsonrpc-kit/client';
import { LocalErrorCode } from '@jsonrpc-kit/core';
import { describe, expect, it } from 'vitest';
import { skipReason } from '../test/redis-server.js';
import { CLOSE_WAIT_MS } from './connection.js';
import { createRedisFanout } from './fanout.js';
import { createRedisQueueClientTransport } from './queue-client-transport.js';
import { createRedisSessionStore } from './session-store.js';
import { type RedisServerProcess, startRedisServer } from './testing.js';

/** A server on `port` that takes connections and never writes a byte. */
async function silentServer(port: number): Promise<Server & { sockets: Socket[] }> {
  const sockets: Socket[] = [];
  const server = Object.assign(
    createServer((socket) => void sockets.push(socket)),
    { sockets },
  );
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, '127.0.0.1', () => resolve());
  });
  return server;
}

/** Stops Redis and puts a silent server on its port, once `connections` have reached it. */
async function silenceRedis(
  redis: RedisServerProcess,
  connections: number,
): Promise<Server & { sockets: Socket[] }> {
  const port = redis.port;
  await redis.stop();
  const silent = await silentServer(port);
  // The reconnect backoff is at most 2 s between attempts.
  await expect
    .poll(() => silent.sockets.length, { timeout: 8000 })
    .toBeGreaterThanOrEqual(connections);
  return silent;
}

/** How long `work` took, in milliseconds; `Infinity` when it had not settled after `limit`. */
async function timed(work: () => Promise<unknown>, limit: number): Promise<number> {
  const start = performance.now();
  let timer: ReturnType<typeof setTimeout> | undefined;
  const late = new Promise<number>((resolve) => {
    timer = setTimeout(resolve, limit, Number.POSITIVE_INFINITY);
  });
  const done = work().then(
    () => performance.now() - start,
    () => performance.now() - start,
  );
  try {
    return await Promise.race([done, late]);
  } finally {
    clearTimeout(timer);
  }
}

/** Closes the silent server and the connections it took. */
function closeAll(silent: Server & { sockets: Socket[] }): Promise<void> {
  for (const socket of silent.sockets) socket.destroy();
  return new Promise((resolve) => silent.close(() => resolve()));
}

describe.skipIf(skipReason !== undefined)('a close when Redis stops answering', () => {
  const limit = CLOSE_WAIT_MS + 3000;

  it('the fan-out closes within its wait; a publish still queued is refused', {
    timeout: 20_000,
  }, async () => {
    await using redis = await startRedisServer();
    const fanout = await createRedisFanout({ url: redis.url, channelPrefix: 'c1:' });
    await fanout.subscribe('news', () => {});
    const silent = await silenceRedis(redis, 2);
    try {
      const queued = fanout.publish('news', 1);
      queued.catch(() => {});
      expect(fanout.queued).toBe(1);
      expect(await timed(() => fanout.close(), limit)).toBeLessThan(limit);
      await expect(queued).rejects.toMatchObject({ code: LocalErrorCode.ConnectionClosed });
    } finally {
      await closeAll(silent);
    }
  });

  it('the session store closes within its wait', { timeout: 20_000 }, async () => {
    await using redis = await startRedisServer();
    const store = await createRedisSessionStore({ url: redis.url, keyPrefix: 'c2:' });
    const silent = await silenceRedis(redis, 1);
    try {
      // A lookup in flight on the silent connection: what a graceful close would wait for.
      const lookup = store.lookup('one');
      lookup.catch(() => {});
      expect(await timed(() => store.close(), limit)).toBeLessThan(limit);
    } finally {
      await closeAll(silent);
    }
  });

  it('a queue client closes within its wait', { timeout: 20_000 }, async () => {
    await using redis = await startRedisServer();
    const client = createClient(
      createRedisQueueClientTransport({ url: redis.url, queue: 'c3', blockMs: 100 }),
    );
    await client.notify('warm-up');
    const silent = await silenceRedis(redis, 2);
    try {
      expect(await timed(() => client.close(), limit)).toBeLessThan(limit);
    } finally {
      await closeAll(silent);
    }
  });
});
