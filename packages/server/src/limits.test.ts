import { describe, expect, it, vi } from 'vitest';
import { createServer } from './server.js';

const req = (method: string, params: unknown, id: number): string =>
  JSON.stringify({ jsonrpc: '2.0', id, method, params });
const batchOf = (n: number, method: string, params: unknown = []): string =>
  `[${Array.from({ length: n }, (_, i) => req(method, params, i)).join(',')}]`;
const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));

describe('concurrency', () => {
  it('runs batch members concurrently: all 10 slow members are in flight at once', async () => {
    const server = createServer();
    let now = 0;
    let peak = 0;
    // Each member waits until all ten run (or 2 s, so that members run one by one fail the
    // test instead of hanging it): no guess at how fast the machine starts them.
    let allIn!: () => void;
    const gate = new Promise<void>((resolve) => (allIn = resolve));
    server.method('slow', async () => {
      peak = Math.max(peak, ++now);
      if (now === 10) allIn();
      await Promise.race([gate, sleep(2000)]);
      now--;
      return 1;
    });
    const answer = JSON.parse((await server.handle(batchOf(10, 'slow')))!);
    expect(answer).toHaveLength(10);
    expect(peak).toBe(10);
  });

  it('holds batchConcurrency within one batch', async () => {
    const server = createServer({ batchConcurrency: 3 });
    let now = 0;
    let peak = 0;
    server.method('slow', async () => {
      peak = Math.max(peak, ++now);
      await sleep(5);
      now--;
      return 1;
    });
    const answer = JSON.parse((await server.handle(batchOf(20, 'slow')))!);
    expect(answer.map((a: { id: number }) => a.id)).toEqual(
      Array.from({ length: 20 }, (_, i) => i),
    );
    expect(peak).toBe(3);
  });

  it('holds maxConcurrency across handle() calls under 10x load, queueing the rest', async () => {
    const server = createServer({ maxConcurrency: 4, maxQueue: 100 });
    let now = 0;
    let peak = 0;
    server.method('slow', async () => {
      peak = Math.max(peak, ++now);
      await sleep(5);
      now--;
      return 'ok';
    });
    const answers = await Promise.all(
      Array.from({ length: 40 }, (_, i) => server.handle(req('slow', [], i))),
    );
    expect(peak).toBe(4);
    expect(answers.every((a) => a!.includes('"result":"ok"'))).toBe(true);
  });

  it('answers -32002 once the queue is full, and recovers', async () => {
    const server = createServer({ maxConcurrency: 2, maxQueue: 3 });
    const gates: Array<() => void> = [];
    server.method(
      'gate',
      () => new Promise<string>((resolve) => gates.push(() => resolve('done'))),
    );
    const answers = Array.from({ length: 8 }, (_, i) => server.handle(req('gate', [], i)));
    // 2 running + 3 queued; the other 3 are refused at once
    const refused = await Promise.all(answers.slice(5));
    for (const text of refused) {
      expect(JSON.parse(text!).error).toEqual({ code: -32002, message: 'Server busy' });
    }
    expect(gates).toHaveLength(2);
    for (let i = 0; i < 5; i++) {
      while (gates.length === 0) await sleep(1);
      gates.shift()!();
    }
    const done = await Promise.all(answers.slice(0, 5));
    expect(done.every((a) => a!.includes('"done"'))).toBe(true);
    server.method('sync', () => 1);
    expect(await server.handle(req('sync', [], 9))).toBe('{"jsonrpc":"2.0","id":9,"result":1}');
  });

  it('does not count sync handlers against the limit', async () => {
    const server = createServer({ maxConcurrency: 1, maxQueue: 0 });
    server.method('sync', () => 1);
    const answers = await Promise.all(
      Array.from({ length: 50 }, (_, i) => server.handle(req('sync', [], i))),
    );
    expect(answers.every((a) => a!.includes('"result":1'))).toBe(true);
  });

  it('rejects bad limits', () => {
    expect(() => createServer({ maxConcurrency: 0 })).toThrow(RangeError);
    expect(() => createServer({ maxBatchSize: -1 })).toThrow(RangeError);
    expect(() => createServer({ maxQueue: -1 })).toThrow(RangeError);
  });
});

describe('timeouts', () => {
  it('answers -32005 after the server timeout and aborts ctx.signal; the late result is dropped', async () => {
    const server = createServer({ handlerTimeout: 20 });
    let signal: AbortSignal | undefined;
    const finished = vi.fn();
    server.method('slow', async (_p, ctx) => {
      signal = ctx.signal;
      await sleep(60);
      finished();
      return 'late';
    });
    const answer = await server.handle(req('slow', [], 1));
    // Answered on the deadline, before the handler could finish.
    expect(finished).not.toHaveBeenCalled();
    expect(answer).toBe(
      '{"jsonrpc":"2.0","id":1,"error":{"code":-32005,"message":"Request timed out after 20 ms"}}',
    );
    expect(signal!.aborted).toBe(true);
    expect((signal!.reason as { code: number }).code).toBe(-32005);
    await sleep(60);
    expect(finished).toHaveBeenCalled();
  });

  it('prefers the method timeout, and answers in time when the handler is quick', async () => {
    const server = createServer({ handlerTimeout: 1000 });
    server.method(
      'slow',
      async () => {
        await sleep(100);
        return 1;
      },
      { timeout: 10 },
    );
    server.method('quick', async () => 2, { timeout: 50 });
    expect(JSON.parse((await server.handle(req('slow', [], 1)))!).error.code).toBe(-32005);
    expect(await server.handle(req('quick', [], 2))).toBe('{"jsonrpc":"2.0","id":2,"result":2}');
  });

  it('times out notifications too, reporting to onError', async () => {
    const onError = vi.fn();
    const server = createServer({ onError, handlerTimeout: 10 });
    let signal: AbortSignal | undefined;
    server.notification('slow', (_p, ctx) => {
      signal = ctx.signal;
      return new Promise(() => {});
    });
    expect(await server.handle('{"jsonrpc":"2.0","method":"slow"}')).toBe(undefined);
    expect(signal!.aborted).toBe(true);
    expect(onError.mock.calls[0]![0].code).toBe(-32005);
  });

  it('keeps the slot of a timed-out handler until it really ends', async () => {
    const server = createServer({ handlerTimeout: 10, maxConcurrency: 1, maxQueue: 0 });
    let release!: () => void;
    server.method('stuck', () => new Promise<void>((r) => (release = r)));
    expect(JSON.parse((await server.handle(req('stuck', [], 1)))!).error.code).toBe(-32005);
    expect(JSON.parse((await server.handle(req('stuck', [], 2)))!).error.code).toBe(-32002);
    release();
    await sleep(1);
    const third = server.handle(req('stuck', [], 3));
    release();
    expect(await third).toBe('{"jsonrpc":"2.0","id":3,"result":null}');
  });
});
