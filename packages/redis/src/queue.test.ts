import { type ChildProcess, spawn } from 'node:child_process';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { createClient } from '@jsonrpc-kit/client';
import { createServer } from '@jsonrpc-kit/server';
import { afterEach, describe, expect, it } from 'vitest';
import { skipReason, useRedisServer } from '../test/redis-server.js';
import { createRedisQueueClientTransport } from './queue-client-transport.js';
import { createRedisQueueWorkerTransport } from './queue-worker-transport.js';

const workerScript = fileURLToPath(new URL('../test/fixtures/queue-worker.mjs', import.meta.url));

describe.skipIf(skipReason !== undefined)('queue transport on a real redis-server', () => {
  const redis = useRedisServer();

  it('serves requests, notifications and batches through a consumer group', async () => {
    const queue = 'q-basic';
    const server = createServer();
    const seen: string[] = [];
    server.method('add', ([a, b]: [number, number]) => a + b);
    server.notification('log', ({ message }: { message: string }) => void seen.push(message));
    const worker = createRedisQueueWorkerTransport({ url: redis.url, queue, blockMs: 100 });
    await using connection = server.connect(worker);
    await using client = createClient(
      createRedisQueueClientTransport({ url: redis.url, queue, blockMs: 100 }),
    );
    expect(await client.request('add', [1, 2])).toBe(3);
    await client.notify('log', { message: 'hi' });
    const results = await client.batch((b) => [b.request('add', [2, 3]), b.request('nope')]);
    expect(results[0]).toEqual({ ok: true, value: 5 });
    expect(results[1].ok).toBe(false);
    await expect.poll(() => seen, { timeout: 2000 }).toEqual(['hi']);
    expect(connection).toBeDefined();
  });

  it('answers each of two callers that use the same ids', async () => {
    const queue = 'q-same-ids';
    const server = createServer();
    server.method('echo', async ([value]: [string]) => {
      await new Promise((resolve) => setTimeout(resolve, 20));
      return value;
    });
    await using _connection = server.connect(
      createRedisQueueWorkerTransport({ url: redis.url, queue, blockMs: 100 }),
    );
    await using a = createClient(
      createRedisQueueClientTransport({ url: redis.url, queue, blockMs: 100 }),
    );
    await using b = createClient(
      createRedisQueueClientTransport({ url: redis.url, queue, blockMs: 100 }),
    );
    const calls = [];
    for (let i = 0; i < 5; i++)
      calls.push(a.request('echo', [`a${i}`]), b.request('echo', [`b${i}`]));
    expect(await Promise.all(calls)).toEqual([0, 1, 2, 3, 4].flatMap((i) => [`a${i}`, `b${i}`]));
  });

  it('keeps serving after a redis-server restart: the group is made again, new calls are answered', {
    timeout: 30_000,
  }, async () => {
    const queue = 'q-restart';
    const server = createServer();
    server.method('ping', () => 'pong');
    await using _connection = server.connect(
      createRedisQueueWorkerTransport({ url: redis.url, queue, blockMs: 100 }),
    );
    await using client = createClient(
      createRedisQueueClientTransport({ url: redis.url, queue, blockMs: 100 }),
      { callTimeout: 1000 },
    );
    expect(await client.request('ping')).toBe('pong');
    await redis.restart(300);
    // The restarted Redis has no data (no persistence here): a call made while the worker has not
    // yet made its group again may be lost with it, and times out; a later one is answered.
    let answer: unknown;
    for (let attempt = 0; attempt < 10 && answer === undefined; attempt++) {
      answer = await client.request('ping').catch(() => undefined);
    }
    expect(answer).toBe('pong');
  });

  const visibility = 400;
  const children: ChildProcess[] = [];
  afterEach(() => {
    for (const child of children.splice(0)) if (child.exitCode === null) child.kill('SIGKILL');
  });
  /** Starts a worker process of `queue`; resolves once it serves. */
  const startWorker = (
    queue: string,
    name: string,
    env: Record<string, string> = {},
  ): Promise<{ child: ChildProcess; lines: string[] }> =>
    new Promise((resolve, reject) => {
      const child = spawn(
        process.execPath,
        [workerScript, redis.url, queue, name, String(visibility)],
        { stdio: ['ignore', 'pipe', 'inherit'], env: { ...process.env, ...env } },
      );
      children.push(child);
      const lines: string[] = [];
      createInterface({ input: child.stdout! }).on('line', (line) => {
        lines.push(line);
        if (line === 'ready') resolve({ child, lines });
      });
      child.once('exit', (code) => reject(new Error(`worker ${name} exited with ${code}`)));
    });
  const took = (worker: { lines: string[] }): number =>
    worker.lines.filter((l) => l.startsWith('took')).length;

  it('a worker killed mid-request: another worker takes the requests over, each call settles once', async () => {
    const queue = 'q-failover';
    const dying = await startWorker(queue, 'dying', { HANG: '1' });
    await using client = createClient(
      createRedisQueueClientTransport({ url: redis.url, queue, blockMs: 100 }),
      { callTimeout: 10_000 },
    );
    const settled: unknown[] = [];
    const calls = Array.from({ length: 10 }, (_, n) =>
      client.request<{ n: number; by: string }>('double', [n]).then((value) => {
        settled.push(value);
        return value;
      }),
    );
    await expect.poll(() => took(dying), { timeout: 5000 }).toBe(10);
    dying.child.kill('SIGKILL');
    await startWorker(queue, 'healthy');
    const results = await Promise.all(calls);
    expect(results).toEqual(Array.from({ length: 10 }, (_, n) => ({ n: n * 2, by: 'healthy' })));
    // Nothing settles twice.
    await new Promise((resolve) => setTimeout(resolve, visibility * 2));
    expect(settled).toHaveLength(10);
  });

  it('one of two busy workers killed during a run of calls: no call is lost', async () => {
    const queue = 'q-kill-one';
    const [first, second] = await Promise.all([
      startWorker(queue, 'first', { DELAY: '300' }),
      startWorker(queue, 'second', { DELAY: '300' }),
    ]);
    await using client = createClient(
      createRedisQueueClientTransport({ url: redis.url, queue, blockMs: 100 }),
      { callTimeout: 10_000 },
    );
    const calls = Array.from({ length: 60 }, (_, n) =>
      client.request<{ n: number; by: string }>('double', [n]),
    );
    // Kill whichever worker holds requests first (it has not answered them yet).
    await expect.poll(() => took(first!) + took(second!), { timeout: 5000 }).toBeGreaterThan(0);
    const [killed, survivor] = took(first!) > 0 ? [first!, second!] : [second!, first!];
    killed.child.kill('SIGKILL');
    const results = await Promise.all(calls);
    expect(results.map((r) => r.n)).toEqual(Array.from({ length: 60 }, (_, n) => n * 2));
    expect(took(survivor)).toBeGreaterThan(0);
  });
});
