import { type Client, createClient } from '@jsonrpc-kit/client';
import {
  createMemoryTransportPair,
  InvalidParamsError,
  JsonRpcError,
  ServerBusyError,
} from '@jsonrpc-kit/core';
import { createServer, type Server } from '@jsonrpc-kit/server';
import {
  createMetricsRegistry,
  createTokenBucket,
  type LogEntry,
  logging,
  type MetricsRecorder,
  metrics,
  rateLimit,
} from '@jsonrpc-kit/server/middleware';
import { afterEach, describe, expect, it } from 'vitest';

const open: Array<{ close(): Promise<void> }> = [];
afterEach(async () => {
  await Promise.all(open.splice(0).map((c) => c.close()));
});

function connect(server: Server): Client {
  const [a, b] = createMemoryTransportPair();
  server.connect(b);
  const client = createClient(a);
  open.push(client);
  return client;
}

function demoServer(): Server {
  const server = createServer();
  server.method('ok', (p: unknown) => p ?? 'ok');
  server.method('bad', () => {
    throw new InvalidParamsError('nope');
  });
  server.method('boom', () => {
    throw new Error('secret detail');
  });
  server.method('slow', () => new Promise((r) => setTimeout(() => r('late'), 20)));
  server.notification('note', () => {});
  return server;
}

describe('logging', () => {
  it('writes one entry per call with outcome, duration, and no params by default', async () => {
    const entries: LogEntry[] = [];
    const server = demoServer();
    server.use(logging({ sink: (e) => entries.push(e) }));
    const client = connect(server);
    await client.request('ok', { password: 'hunter2' });
    await expect(client.request('bad')).rejects.toMatchObject({ code: -32602 });
    await expect(client.request('boom')).rejects.toMatchObject({ code: -32603 });
    await client.notify('note', { x: 1 });
    await expect.poll(() => entries.length).toBe(4);
    const [ok, bad, boom, note] = entries;
    expect(ok).toMatchObject({ level: 'info', event: 'rpc.end', method: 'ok', id: 1, ok: true });
    expect(ok!.durationMs).toBeGreaterThanOrEqual(0);
    expect('params' in ok!).toBe(false);
    expect(JSON.stringify(entries)).not.toContain('hunter2');
    expect(bad).toMatchObject({
      level: 'warn',
      ok: false,
      errorCode: -32602,
      errorMessage: 'nope',
    });
    expect(boom).toMatchObject({
      level: 'error',
      errorCode: -32603,
      errorMessage: 'Internal error',
    });
    expect((boom!.error as Error).message).toBe('secret detail');
    expect(note).toMatchObject({ method: 'note', notification: true, ok: true });
    expect('id' in note!).toBe(false);
  });

  it('logs params through redact, start entries at debug, and filters by level', async () => {
    const entries: LogEntry[] = [];
    const server = demoServer();
    server.use(
      logging({
        sink: (e) => entries.push(e),
        level: 'debug',
        redact: (params) => ({ ...(params as object), password: '[redacted]' }),
      }),
    );
    const client = connect(server);
    await client.request('ok', { user: 'ann', password: 'hunter2' });
    expect(entries.map((e) => e.event)).toEqual(['rpc.start', 'rpc.end']);
    expect(entries[0]).toMatchObject({
      level: 'debug',
      params: { user: 'ann', password: '[redacted]' },
    });

    const warnings: LogEntry[] = [];
    const quiet = demoServer();
    quiet.use(logging({ sink: (e) => warnings.push(e), level: 'warn' }));
    const c2 = connect(quiet);
    await c2.request('ok');
    await expect(c2.request('bad')).rejects.toThrow();
    expect(warnings.map((e) => e.method)).toEqual(['bad']);
  });

  it('never lets a throwing sink fail the call', async () => {
    const server = demoServer();
    server.use(
      logging({
        sink: () => {
          throw new Error('disk full');
        },
      }),
    );
    await expect(connect(server).request('ok', ['x'])).resolves.toEqual(['x']);
  });

  it('writes JSON lines to stderr by default', async () => {
    const lines: string[] = [];
    const original = console.error;
    console.error = (line: string) => lines.push(line);
    try {
      const server = demoServer();
      server.use(logging());
      const text = await server.handle('{"jsonrpc":"2.0","id":7,"method":"boom"}', {
        kind: 'http',
        remoteAddress: '127.0.0.1',
      });
      expect(JSON.parse(text!).error).toEqual({ code: -32603, message: 'Internal error' });
    } finally {
      console.error = original;
    }
    expect(lines).toHaveLength(1);
    expect(JSON.parse(lines[0]!)).toMatchObject({
      level: 'error',
      method: 'boom',
      id: 7,
      transport: 'http',
      remoteAddress: '127.0.0.1',
      error: 'secret detail',
    });
  });
});

describe('metrics', () => {
  it('counts calls, errors by code, durations and in-flight per method', async () => {
    const registry = createMetricsRegistry({ buckets: [5, 1000] });
    const server = demoServer();
    server.use(metrics({ registry }));
    const client = connect(server);
    await client.request('ok');
    await client.request('ok');
    await expect(client.request('bad')).rejects.toThrow();
    await expect(client.request('boom')).rejects.toThrow();
    await expect(client.request('missing')).rejects.toMatchObject({ code: -32601 });
    const slow = client.request('slow');
    await expect.poll(() => registry.snapshot().methods.slow?.inFlight).toBe(1);
    await slow;
    const { methods } = registry.snapshot();
    expect(methods.ok).toMatchObject({ count: 2, errors: 0, inFlight: 0, errorCodes: {} });
    expect(methods.bad).toMatchObject({ count: 1, errors: 1, errorCodes: { '-32602': 1 } });
    expect(methods.boom!.errorCodes).toEqual({ '-32603': 1 });
    expect(methods.missing!.errorCodes).toEqual({ '-32601': 1 });
    expect(methods.slow).toMatchObject({ count: 1, inFlight: 0 });
    expect(methods.slow!.durationSumMs).toBeGreaterThanOrEqual(15);
    expect(methods.slow!.buckets).toEqual([
      { le: 5, count: 0 },
      { le: 1000, count: 1 },
    ]);
    expect(methods.ok!.buckets[1]!.count).toBe(2);
  });

  it('renders the Prometheus text format', () => {
    const registry = createMetricsRegistry({ buckets: [10] });
    registry.onStart('a"b');
    registry.onEnd('a"b', 3);
    registry.onStart('x');
    registry.onEnd('x', 30, -32602);
    const text = registry.toPrometheus('rpc');
    expect(text).toContain('# TYPE rpc_requests_total counter');
    expect(text).toContain('rpc_requests_total{method="a\\"b"} 1');
    expect(text).toContain('rpc_errors_total{method="x",code="-32602"} 1');
    expect(text).toContain('rpc_duration_ms_bucket{method="x",le="10"} 0');
    expect(text).toContain('rpc_duration_ms_bucket{method="x",le="+Inf"} 1');
    expect(text).toContain('rpc_duration_ms_sum{method="x"} 30');
    expect(text).toContain('rpc_in_flight{method="x"} 0');
    expect(text.endsWith('\n')).toBe(true);
  });

  it('bounds method names, resets, and rejects bad buckets', () => {
    const registry = createMetricsRegistry({ maxMethods: 2 });
    for (const name of ['a', 'b', 'c', 'd']) {
      registry.onStart(name);
      registry.onEnd(name, 1);
    }
    expect(Object.keys(registry.snapshot().methods)).toEqual(['a', 'b', 'other']);
    expect(registry.snapshot().methods.other!.count).toBe(2);
    registry.onStart('a');
    registry.reset();
    expect(registry.snapshot().methods.a).toMatchObject({ count: 0, inFlight: 1 });
    registry.onEnd('a', 1);
    expect(registry.snapshot().methods.a).toMatchObject({ count: 1, inFlight: 0 });
    expect(() => createMetricsRegistry({ buckets: [5, 1] })).toThrow(TypeError);
    expect(() => createMetricsRegistry({ buckets: [Number.NaN] })).toThrow(TypeError);
  });

  it('accepts any recorder, and a throwing one never fails the call', async () => {
    const events: string[] = [];
    const recorder: MetricsRecorder = {
      onStart: (m) => events.push(`start ${m}`),
      onEnd: (m, _d, code) => {
        events.push(`end ${m} ${code ?? 'ok'}`);
        throw new Error('exporter down');
      },
    };
    const server = demoServer();
    server.use(metrics({ registry: recorder }));
    const client = connect(server);
    await expect(client.request('ok', [1])).resolves.toEqual([1]);
    await expect(client.request('bad')).rejects.toMatchObject({ code: -32602 });
    expect(events).toEqual(['start ok', 'end ok ok', 'start bad', 'end bad -32602']);
  });
});

describe('token bucket', () => {
  it('allows a burst of capacity, then refills over time', () => {
    let now = 0;
    const bucket = createTokenBucket({ capacity: 3, refillPerSecond: 2, now: () => now });
    expect([bucket.take(), bucket.take(), bucket.take(), bucket.take()]).toEqual([
      true,
      true,
      true,
      false,
    ]);
    now = 499;
    expect(bucket.take()).toBe(false);
    now = 500;
    expect(bucket.take()).toBe(true);
    now = 100_000;
    expect(bucket.tokens).toBe(3);
    expect(bucket.take(4)).toBe(false);
    expect(bucket.take(3)).toBe(true);
  });

  it('rejects nonsense rates', () => {
    expect(() => createTokenBucket({ capacity: 0, refillPerSecond: 1 })).toThrow(TypeError);
    expect(() => createTokenBucket({ capacity: 1, refillPerSecond: -1 })).toThrow(TypeError);
    expect(() => rateLimit({ capacity: Number.POSITIVE_INFINITY, refillPerSecond: 1 })).toThrow(
      TypeError,
    );
  });
});

describe('rateLimit', () => {
  it('answers -32002 with retryAfterMs once a connection’s bucket is empty', async () => {
    let now = 0;
    const server = demoServer();
    server.use(rateLimit({ capacity: 2, refillPerSecond: 4, now: () => now }));
    const client = connect(server);
    await client.request('ok');
    await client.request('ok');
    const error = await client.request('ok').catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ServerBusyError);
    expect(error).toMatchObject({
      code: -32002,
      message: 'Rate limit exceeded',
      data: { retryAfterMs: 250 },
    });
    // Another connection has its own bucket.
    await expect(connect(server).request('ok')).resolves.toBe('ok');
    now = 250;
    await expect(client.request('ok')).resolves.toBe('ok');
  });

  it('shows the -32002 answer on the wire for stateless exchanges, keyed by address', async () => {
    const server = demoServer();
    server.use(rateLimit({ capacity: 1, refillPerSecond: 0 }));
    const call = '{"jsonrpc":"2.0","id":"r","method":"ok"}';
    const ctxA = { kind: 'http', remoteAddress: '10.0.0.1' };
    expect(await server.handle(call, ctxA)).toBe('{"jsonrpc":"2.0","id":"r","result":"ok"}');
    expect(await server.handle(call, ctxA)).toBe(
      '{"jsonrpc":"2.0","id":"r","error":{"code":-32002,"message":"Rate limit exceeded"}}',
    );
    expect(await server.handle(call, { kind: 'http', remoteAddress: '10.0.0.2' })).toContain(
      'result',
    );
  });

  it('uses a custom key and cost, and bounds the key map', async () => {
    const server = demoServer();
    server.use(
      rateLimit({
        capacity: 2,
        refillPerSecond: 0,
        maxKeys: 2,
        key: (ctx) => String((ctx.params as { user?: string })?.user),
        cost: (ctx) => (ctx.method === 'slow' ? 2 : 1),
      }),
    );
    const client = connect(server);
    await client.request('ok', { user: 'a' });
    await client.request('ok', { user: 'a' });
    await expect(client.request('ok', { user: 'a' })).rejects.toMatchObject({ code: -32002 });
    await expect(client.request('slow', { user: 'b' })).resolves.toBe('late');
    await expect(client.request('ok', { user: 'b' })).rejects.toMatchObject({ code: -32002 });
    // A third key evicts the least recently used ("a"), which then starts full again.
    await client.request('ok', { user: 'c' });
    await expect(client.request('ok', { user: 'a' })).resolves.toEqual({ user: 'a' });
  });

  it('drops the least recently used key, however the keys were used', async () => {
    const server = demoServer();
    server.use(
      rateLimit({
        capacity: 1,
        refillPerSecond: 0,
        maxKeys: 3,
        key: (ctx) => String((ctx.params as { user?: string })?.user),
      }),
    );
    const client = connect(server);
    const call = (user: string) =>
      client.request('ok', { user }).then(
        () => 'ok',
        (error: { code?: number }) => error.code,
      );
    // Each first call empties its key's bucket: a key still kept answers -32002 after it.
    for (const user of ['a', 'b', 'c']) expect(await call(user)).toBe('ok');
    expect(await call('a')).toBe(-32002); // used: "b" is now the least recently used
    expect(await call('a')).toBe(-32002); // the most recently used, used again
    expect(await call('d')).toBe('ok'); // drops "b"
    expect(await call('c')).toBe(-32002); // kept: "a" is now the least recently used
    expect(await call('e')).toBe('ok'); // drops "a"
    expect(await call('b')).toBe('ok'); // dropped earlier: a full bucket again; drops "d"
    expect(await call('a')).toBe('ok'); // dropped: full again; drops "c"
    expect(await call('e')).toBe(-32002);
    expect(await call('d')).toBe('ok'); // dropped by "b"
  });

  it('drops rate-limited notifications and reports them', async () => {
    const errors: unknown[] = [];
    const seen: unknown[] = [];
    const server = createServer({ onError: (e) => errors.push(e) });
    server.notification('note', (p) => {
      seen.push(p);
    });
    server.use(rateLimit({ capacity: 1, refillPerSecond: 0 }));
    expect(await server.handle('{"jsonrpc":"2.0","method":"note","params":[1]}')).toBeUndefined();
    expect(await server.handle('{"jsonrpc":"2.0","method":"note","params":[2]}')).toBeUndefined();
    expect(seen).toEqual([[1]]);
    expect(errors[0]).toBeInstanceOf(JsonRpcError);
  });
});
