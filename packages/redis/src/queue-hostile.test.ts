import { createClient } from '@jsonrpc-kit/client';
import { ErrorCode, type TransportHandler } from '@jsonrpc-kit/core';
import { createServer } from '@jsonrpc-kit/server';
import { createClient as createRedisClient } from '@redis/client';
import { describe, expect, it } from 'vitest';
import { connectionsNoticed, skipReason, useRedisServer } from '../test/redis-server.js';
import { createRedisQueueClientTransport, QUEUE_RECOUNT_MS } from './queue-client-transport.js';
import { createRedisQueueWorkerTransport } from './queue-worker-transport.js';

describe.skipIf(skipReason !== undefined)('queue transport against hostile callers', () => {
  const redis = useRedisServer();

  /** A raw connection for looking at the streams; closed by `await using`. */
  const rawRedis = async () => {
    const raw = createRedisClient({ url: redis.url });
    await raw.connect();
    return Object.assign(raw, { [Symbol.asyncDispose]: async () => raw.destroy() });
  };

  it('a poison batch ([] or over maxBatchSize) is answered to its caller and acknowledged; the worker goes on', async () => {
    const queue = 'q-poison-batch';
    const server = createServer({ maxBatchSize: 2 });
    server.method('ping', () => 'pong');
    await using _connection = server.connect(
      createRedisQueueWorkerTransport({ url: redis.url, queue, blockMs: 100, concurrency: 2 }),
    );
    await using raw = await rawRedis();
    // Two callers send `[]` straight to the transport; each gets its own id-null error.
    const heard: string[][] = [[], []];
    const callers = [0, 1].map(() =>
      createRedisQueueClientTransport({ url: redis.url, queue, blockMs: 100 }),
    );
    for (const [n, caller] of callers.entries()) {
      const handler: TransportHandler = {
        onMessage: (m) => void heard[n]!.push(m),
        onClose: () => {},
      };
      await caller.start(handler);
      await caller.send('[]');
    }
    await expect.poll(() => heard.map((h) => h.length), { timeout: 3000 }).toEqual([1, 1]);
    for (const h of heard) {
      expect(JSON.parse(h[0]!)).toMatchObject({
        id: null,
        error: { code: ErrorCode.InvalidRequest },
      });
    }
    // A batch over the server's maxBatchSize fails its call promptly, with the server's error.
    await using client = createClient(
      createRedisQueueClientTransport({ url: redis.url, queue, blockMs: 100 }),
      { callTimeout: 10_000 },
    );
    const started = Date.now();
    const results = await client.batch((b) => [
      b.request('ping'),
      b.request('ping'),
      b.request('ping'),
    ]);
    expect(results.map((r) => (r.ok ? 'ok' : r.error.code))).toEqual(
      Array(3).fill(ErrorCode.BatchTooLarge),
    );
    expect(Date.now() - started).toBeLessThan(3000);
    // The worker (concurrency 2, three poison entries) still serves, and holds nothing.
    expect(await client.request('ping')).toBe('pong');
    await expect
      .poll(async () => ((await raw.sendCommand(['XPENDING', queue, 'workers'])) as [number])[0], {
        timeout: 3000,
      })
      .toBe(0);
    for (const caller of callers) await caller.close();
  });

  it('a request that stops every worker that takes it is given up on after maxDeliveries: answered, acknowledged, dead-lettered', {
    timeout: 20_000,
  }, async () => {
    const queue = 'q-poison-request';
    const maxDeliveries = 2;
    let ran = 0;
    const connections: { close(): Promise<void> }[] = [];
    /** A worker that stops (closes, without answering) when it runs `poison`. */
    const startDyingWorker = () => {
      const server = createServer();
      const transport = createRedisQueueWorkerTransport({
        url: redis.url,
        queue,
        blockMs: 100,
        visibilityTimeout: 300,
        maxDeliveries,
      });
      server.method('poison', () => {
        ran++;
        void transport.close();
        return new Promise(() => {});
      });
      connections.push(server.connect(transport));
      return transport;
    };
    await using raw = await rawRedis();
    await using client = createClient(
      createRedisQueueClientTransport({ url: redis.url, queue, blockMs: 100 }),
      { callTimeout: 15_000 },
    );
    let outcome: unknown;
    const call = client.request('poison', { n: 1 }).then(
      () => (outcome = 'answered'),
      (error: unknown) => (outcome = error),
    );
    let last = startDyingWorker();
    // Each time the worker holding it stops, start another; bounded.
    for (let workers = 1; workers < 6 && outcome === undefined; workers++) {
      await expect
        .poll(() => ran >= workers || outcome !== undefined, { timeout: 5000 })
        .toBe(true);
      if (outcome === undefined) last = startDyingWorker();
    }
    await call;
    expect(outcome).toMatchObject({ code: ErrorCode.InternalError, data: { deliveries: 3 } });
    expect(ran).toBe(maxDeliveries);
    expect(last.deadLettered).toBe(1);
    const dead = (await raw.sendCommand(['XRANGE', `${queue}:dead`, '-', '+'])) as [
      string,
      string[],
    ][];
    expect(dead).toHaveLength(1);
    const fields = dead[0]![1];
    expect(fields[fields.indexOf('b') + 1]).toContain('"poison"');
    expect(fields[fields.indexOf('n') + 1]).toBe('3');
    await expect
      .poll(async () => ((await raw.sendCommand(['XPENDING', queue, 'workers'])) as [number])[0], {
        timeout: 3000,
      })
      .toBe(0);
    for (const connection of connections) await connection.close();
  });

  it('refuses new requests at once while the queue is at maxBacklog, and trims none of those it took', {
    timeout: 20_000,
  }, async () => {
    const queue = 'q-full';
    const maxBacklog = 50;
    await using raw = await rawRedis();
    await using client = createClient(
      createRedisQueueClientTransport({ url: redis.url, queue, blockMs: 100, maxBacklog }),
      { callTimeout: 10_000 },
    );
    // No worker yet: 250 calls, of which the queue takes 50 and refuses the rest at once.
    const started = Date.now();
    const outcomes: unknown[] = [];
    const calls = Array.from({ length: 250 }, (_, n) =>
      client.request('ping', [n]).then(
        (value) => void outcomes.push(value),
        (error: { code?: unknown; message?: string }) =>
          void outcomes.push(`${String(error.code)}: ${error.message}`),
      ),
    );
    await expect.poll(() => outcomes.length, { timeout: 3000 }).toBe(200);
    expect(Date.now() - started).toBeLessThan(3000);
    for (const outcome of outcomes) expect(String(outcome)).toMatch(/^TRANSPORT_ERROR: .*full/);
    expect(await raw.sendCommand(['XLEN', queue])).toBe(maxBacklog);
    // A worker then answers every request the queue took, and the stream empties.
    const server = createServer();
    server.method('ping', ([n]: [number]) => n);
    await using _connection = server.connect(
      createRedisQueueWorkerTransport({ url: redis.url, queue, blockMs: 100 }),
    );
    await Promise.all(calls);
    expect(outcomes.filter((o) => typeof o === 'number')).toHaveLength(maxBacklog);
    await expect.poll(() => raw.sendCommand(['XLEN', queue]), { timeout: 3000 }).toBe(0);
    // Room again: a new call goes through (once the full count is older than a recount).
    await new Promise((resolve) => setTimeout(resolve, QUEUE_RECOUNT_MS));
    expect(await client.request('ping', [7])).toBe(7);
  });

  it('a call given up on before a worker took it is never run: it is deleted from the stream', async () => {
    const queue = 'q-given-up';
    await using raw = await rawRedis();
    await using client = createClient(
      createRedisQueueClientTransport({ url: redis.url, queue, blockMs: 100 }),
    );
    await expect(client.request('slow', [], { timeout: 200 })).rejects.toMatchObject({
      code: 'TIMEOUT',
    });
    await expect.poll(() => raw.sendCommand(['XLEN', queue]), { timeout: 2000 }).toBe(0);
    let ran = 0;
    const server = createServer();
    server.method('slow', () => ++ran);
    server.method('ping', () => 'pong');
    await using _connection = server.connect(
      createRedisQueueWorkerTransport({ url: redis.url, queue, blockMs: 100 }),
    );
    expect(await client.request('ping')).toBe('pong');
    expect(ran).toBe(0);
  });

  it('while Redis is down: holds at most maxQueue, refuses more at once, drops the calls given up on and sends the rest once it is back', {
    timeout: 30_000,
  }, async () => {
    const queue = 'q-outage';
    const ran: string[] = [];
    const server = createServer();
    server.method('run', ([name]: [string]) => {
      ran.push(name);
      return name;
    });
    await using _connection = server.connect(
      createRedisQueueWorkerTransport({ url: redis.url, queue, blockMs: 100 }),
    );
    const transport = createRedisQueueClientTransport({
      url: redis.url,
      queue,
      blockMs: 100,
      maxQueue: 6,
    });
    await using client = createClient(transport, { callTimeout: 20_000 });
    expect(await client.request('run', ['before'])).toBe('before');
    let answers: Promise<unknown>[] = [];
    await redis.restart(1500, async () => {
      await connectionsNoticed();
      // Three calls that give up during the outage, three that wait, and more than the bound.
      const givenUp = ['g1', 'g2', 'g3'].map((name) =>
        client
          .request('run', [name], { timeout: 300 })
          .catch((error: { code: string }) => error.code),
      );
      answers = ['w1', 'w2', 'w3'].map((name) => client.request('run', [name]));
      const started = Date.now();
      const refused = await client.request('run', ['over']).catch((error: Error) => error);
      expect(Date.now() - started).toBeLessThan(500);
      expect(refused).toMatchObject({ code: 'TRANSPORT_ERROR' });
      expect((refused as Error).message).toMatch(/unreachable/);
      expect(await Promise.all(givenUp)).toEqual(['TIMEOUT', 'TIMEOUT', 'TIMEOUT']);
      // With the given-up ones let go of, there is room again for one more.
      answers.push(client.request('run', ['late']));
    });
    expect(await Promise.all(answers)).toEqual(['w1', 'w2', 'w3', 'late']);
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(ran.filter((name) => name.startsWith('g'))).toEqual([]);
  });
});
