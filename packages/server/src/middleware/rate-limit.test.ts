import { createMemoryTransportPair, type TransportContext } from '@jsonrpc-kit/core';
import { describe, expect, it } from 'vitest';
import { createServer } from '../server.js';
import type { Server } from '../server-types.js';
import { createTokenBucket, rateLimit } from './rate-limit.js';

const req = (method: string, id = 1): string =>
  JSON.stringify({ jsonrpc: '2.0', id, method, params: [] });

/** The error code answered, or `undefined` for a result. */
async function codeOf(server: Server, context?: TransportContext): Promise<number | undefined> {
  const answer = JSON.parse((await server.handle(req('ok'), context))!);
  return answer.error?.code;
}

function limited(options: Omit<Parameters<typeof rateLimit>[0], 'now'>): {
  server: Server;
  clock: { now: number };
} {
  const clock = { now: 0 };
  const server = createServer();
  server.use(rateLimit({ ...options, now: () => clock.now }));
  server.method('ok', () => 'ok');
  return { server, clock };
}

describe('createTokenBucket', () => {
  it('starts full, refills continuously and never beyond capacity', () => {
    let now = 0;
    const bucket = createTokenBucket({ capacity: 3, refillPerSecond: 2, now: () => now });
    expect([bucket.take(), bucket.take(), bucket.take(), bucket.take()]).toEqual([
      true,
      true,
      true,
      false,
    ]);
    now = 250;
    expect(bucket.tokens).toBeCloseTo(0.5);
    expect(bucket.take()).toBe(false);
    now = 500;
    expect(bucket.take()).toBe(true);
    now = 60_000;
    expect(bucket.tokens).toBe(3);
    expect(bucket.take(3)).toBe(true);
    expect(bucket.take(0.5)).toBe(false);
  });

  it('rejects a capacity that is not > 0 and finite, or a negative refill rate', () => {
    expect(() => createTokenBucket({ capacity: 0, refillPerSecond: 1 })).toThrow(TypeError);
    expect(() => createTokenBucket({ capacity: Number.NaN, refillPerSecond: 1 })).toThrow(
      TypeError,
    );
    expect(() => createTokenBucket({ capacity: 1, refillPerSecond: -1 })).toThrow(TypeError);
    expect(() => rateLimit({ capacity: 1, refillPerSecond: Number.POSITIVE_INFINITY })).toThrow(
      TypeError,
    );
  });
});

describe('rateLimit', () => {
  it('answers -32002 with retryAfterMs once an address’s bucket is empty, then refills', async () => {
    const { server, clock } = limited({ capacity: 2, refillPerSecond: 4 });
    const a = { kind: 'http', remoteAddress: '192.0.2.1' };
    const b = { kind: 'http', remoteAddress: '192.0.2.2' };
    expect([await codeOf(server, a), await codeOf(server, a)]).toEqual([undefined, undefined]);
    const refused = JSON.parse((await server.handle(req('ok', 3), a))!);
    expect(refused).toEqual({
      jsonrpc: '2.0',
      id: 3,
      error: { code: -32002, message: 'Rate limit exceeded', data: { retryAfterMs: 250 } },
    });
    // Another address has its own bucket.
    expect(await codeOf(server, b)).toBeUndefined();
    clock.now = 250;
    expect(await codeOf(server, a)).toBeUndefined();
    expect(await codeOf(server, a)).toBe(-32002);
  });

  it('shares one bucket without a key, a connection or an address; no retryAfterMs without refill', async () => {
    const { server } = limited({ capacity: 1, refillPerSecond: 0 });
    expect(await codeOf(server)).toBeUndefined();
    const refused = JSON.parse((await server.handle(req('ok')))!);
    expect(refused.error).toEqual({ code: -32002, message: 'Rate limit exceeded' });
  });

  it('gives each duplex connection its own bucket', async () => {
    const { server } = limited({ capacity: 1, refillPerSecond: 0 });
    const answers: string[] = [];
    const connections = [createMemoryTransportPair(), createMemoryTransportPair()];
    for (const [mine, theirs] of connections) {
      server.connect(theirs);
      await mine.start({ onMessage: (text) => answers.push(text), onClose: () => {} });
    }
    try {
      for (const [mine] of connections) {
        await mine.send(req('ok', 1));
        await mine.send(req('ok', 2));
      }
      await expect.poll(() => answers.length, { timeout: 2000 }).toBe(4);
      const codes = answers.map((t) => JSON.parse(t).error?.code ?? 'ok');
      expect(codes.sort()).toEqual([-32002, -32002, 'ok', 'ok']);
    } finally {
      for (const [mine] of connections) await mine.close();
      await server.close();
    }
  });

  it('takes a custom cost from a custom key and keeps at most maxKeys buckets', async () => {
    const server = createServer();
    server.use(
      rateLimit({
        capacity: 2,
        refillPerSecond: 0,
        maxKeys: 1,
        now: () => 0,
        key: (ctx) => String((ctx.params as string[])[0]),
        cost: (ctx) => (ctx.method === 'heavy' ? 2 : 1),
      }),
    );
    server.method('ok', () => 'ok');
    server.method('heavy', () => 'ok');
    const call = async (method: string, key: string): Promise<number | undefined> =>
      JSON.parse(
        (await server.handle(JSON.stringify({ jsonrpc: '2.0', id: 1, method, params: [key] })))!,
      ).error?.code;
    expect(await call('heavy', 'a')).toBeUndefined();
    expect(await call('ok', 'a')).toBe(-32002);
    // A second key pushes the first out (maxKeys 1): it starts again full.
    expect(await call('ok', 'b')).toBeUndefined();
    expect(await call('heavy', 'a')).toBeUndefined();
  });

  it('drops a refused notification before its handler and reports it', async () => {
    const errors: unknown[] = [];
    const seen: number[] = [];
    const server = createServer({ onError: (error) => errors.push(error) });
    server.use(rateLimit({ capacity: 1, refillPerSecond: 0, now: () => 0 }));
    server.notification('note', ([n]: [number]) => {
      seen.push(n);
    });
    const note = (n: number): string =>
      JSON.stringify({ jsonrpc: '2.0', method: 'note', params: [n] });
    expect(await server.handle(note(1))).toBeUndefined();
    expect(await server.handle(note(2))).toBeUndefined();
    await expect.poll(() => errors.length, { timeout: 2000 }).toBe(1);
    expect(seen).toEqual([1]);
    expect(errors[0]).toMatchObject({ code: -32002 });
  });
});
