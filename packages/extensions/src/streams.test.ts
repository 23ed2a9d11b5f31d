import { type Client, createClient } from '@jsonrpc-kit/client';
import {
  ConnectionClosedError,
  createMemoryTransportPair,
  JsonRpcError,
  ProtocolError,
} from '@jsonrpc-kit/core';
import { createServer, type Server } from '@jsonrpc-kit/server';
import { afterEach, describe, expect, it } from 'vitest';
import { streamCall } from './stream-client.js';
import { STREAM_ENDED, StreamEndedError } from './stream-protocol.js';
import { isAsyncIterable, type StreamsOptions, streams } from './stream-server.js';

const cleanup: Array<() => Promise<void> | void> = [];
afterEach(async () => {
  await Promise.all(cleanup.splice(0).map((f) => f()));
});

interface Probe {
  pulled: number;
  finished: boolean;
  returned: boolean;
}

function streamingServer(options?: StreamsOptions): { server: Server; probe: Probe } {
  const probe: Probe = { pulled: 0, finished: false, returned: false };
  const server = createServer();
  const dispose = streams(server, options);
  cleanup.push(dispose);
  server.method('count', async function* ({ to }: { to: number }) {
    try {
      for (let i = 1; i <= to; i++) {
        probe.pulled = i;
        yield i;
      }
      probe.finished = true;
    } finally {
      probe.returned = true;
    }
  });
  server.method('forever', async function* () {
    try {
      for (let i = 0; ; i++) {
        probe.pulled = i + 1;
        yield i;
      }
    } finally {
      probe.returned = true;
    }
  });
  server.method('failAfter', async function* ({ n }: { n: number }) {
    for (let i = 0; i < n; i++) yield i;
    throw new JsonRpcError(4000, 'producer broke', { at: n });
  });
  server.method('crashAfter', async function* ({ n }: { n: number }) {
    for (let i = 0; i < n; i++) yield i;
    throw new Error('secret');
  });
  server.method('ticks', async function* ({ n, ms }: { n: number; ms: number }) {
    for (let i = 0; i < n; i++) {
      await new Promise((r) => setTimeout(r, ms));
      yield i;
    }
  });
  server.method('plain', () => [1, 2, 3]);
  return { server, probe };
}

function connect(server: Server): { client: Client; wire: string[] } {
  const [a, b] = createMemoryTransportPair();
  const wire: string[] = [];
  const send = a.send.bind(a);
  a.send = (message, options) => {
    wire.push(message);
    return send(message, options);
  };
  server.connect(b);
  const client = createClient(a);
  cleanup.push(() => client.close());
  return { client, wire };
}

async function collect<T>(iterable: AsyncIterable<T>): Promise<T[]> {
  const out: T[] = [];
  for await (const item of iterable) out.push(item);
  return out;
}

describe('streams over a duplex connection', () => {
  it('delivers 10k items in order, in windows, and ends', async () => {
    const { server, probe } = streamingServer();
    const { client, wire } = connect(server);
    const items = await collect(
      streamCall<number>(client, 'count', { to: 10_000 }, { window: 500 }),
    );
    expect(items).toHaveLength(10_000);
    expect(items[0]).toBe(1);
    expect(items[9999]).toBe(10_000);
    expect(items.every((n, i) => n === i + 1)).toBe(true);
    expect(probe.finished).toBe(true);
    const pulls = wire.filter((m) => m.includes('rpc.stream.next'));
    expect(pulls.length).toBeGreaterThanOrEqual(20);
    expect(pulls.length).toBeLessThanOrEqual(22);
    expect(client.pending).toBe(0);
  });

  it('speaks the documented wire form', async () => {
    const { server } = streamingServer();
    const [a, b] = createMemoryTransportPair();
    server.connect(b);
    const answers: string[] = [];
    await a.start({ onMessage: (m) => answers.push(m), onClose: () => {} });
    cleanup.push(() => a.close());
    const next = async (text: string): Promise<string> => {
      const before = answers.length;
      await a.send(text);
      await expect.poll(() => answers.length).toBe(before + 1);
      return answers[before]!;
    };
    expect(await next('{"jsonrpc":"2.0","id":1,"method":"count","params":{"to":3}}')).toBe(
      '{"jsonrpc":"2.0","id":1,"result":{"stream":"s1"}}',
    );
    expect(
      await next(
        '{"jsonrpc":"2.0","id":2,"method":"rpc.stream.next","params":{"stream":"s1","max":2}}',
      ),
    ).toBe('{"jsonrpc":"2.0","id":2,"result":{"items":[1,2],"done":false}}');
    expect(
      await next('{"jsonrpc":"2.0","id":3,"method":"rpc.stream.next","params":["s1",5]}'),
    ).toBe('{"jsonrpc":"2.0","id":3,"result":{"items":[3],"done":true}}');
    expect(
      await next(
        '{"jsonrpc":"2.0","id":4,"method":"rpc.stream.next","params":{"stream":"s1","max":1}}',
      ),
    ).toBe(
      '{"jsonrpc":"2.0","id":4,"error":{"code":-32010,"message":"Stream ended","data":{"stream":"s1"}}}',
    );
    expect(
      await next('{"jsonrpc":"2.0","id":5,"method":"rpc.stream.cancel","params":{"stream":"s1"}}'),
    ).toBe('{"jsonrpc":"2.0","id":5,"result":{"cancelled":false}}');
    expect(await next('{"jsonrpc":"2.0","id":6,"method":"plain"}')).toBe(
      '{"jsonrpc":"2.0","id":6,"result":[1,2,3]}',
    );
  });

  it('rejects bad pull params with -32602', async () => {
    const { server } = streamingServer();
    const { client } = connect(server);
    for (const params of [
      { max: 1 },
      { stream: 1 },
      { stream: 's1', max: 0 },
      { stream: 's1', max: 1.5 },
      { stream: 's1', max: '2' },
    ]) {
      await expect(client.request('rpc.stream.next', params)).rejects.toMatchObject({
        code: -32602,
      });
    }
    await expect(client.request('rpc.stream.next', { stream: 'nope' })).rejects.toMatchObject({
      code: STREAM_ENDED,
    });
  });

  it('cancels the producer when the consumer breaks early', async () => {
    const { server, probe } = streamingServer();
    const { client, wire } = connect(server);
    const seen: number[] = [];
    for await (const n of streamCall<number>(client, 'forever', undefined, { window: 10 })) {
      seen.push(n);
      if (n === 25) break;
    }
    expect(seen).toHaveLength(26);
    await expect.poll(() => probe.returned).toBe(true);
    expect(wire.some((m) => m.includes('"rpc.stream.cancel"'))).toBe(true);
    // The producer ran at most one window ahead of the consumer, plus the pull in flight.
    expect(probe.pulled).toBeLessThanOrEqual(26 + 20);
    await expect(client.request('rpc.stream.next', { stream: 's1' })).rejects.toBeInstanceOf(
      JsonRpcError,
    );
  });

  it('never lets a slow consumer make the producer run ahead without bound', async () => {
    const { server, probe } = streamingServer();
    const { client } = connect(server);
    const iterator = streamCall<number>(client, 'forever', undefined, { window: 8 });
    expect(await iterator.next()).toEqual({ done: false, value: 0 });
    await new Promise((r) => setTimeout(r, 50));
    expect(probe.pulled).toBeLessThanOrEqual(16);
    await iterator.return();
    await expect.poll(() => probe.returned).toBe(true);
    expect(await iterator.next()).toEqual({ done: true, value: undefined });
  });

  it('makes the consumer loop throw the producer’s error after the items before it', async () => {
    const { server } = streamingServer();
    const { client } = connect(server);
    const seen: number[] = [];
    const error = await (async () => {
      for await (const n of streamCall<number>(client, 'failAfter', { n: 7 }, { window: 5 }))
        seen.push(n);
    })().catch((e: unknown) => e);
    expect(seen).toEqual([0, 1, 2, 3, 4, 5, 6]);
    expect(error).toBeInstanceOf(JsonRpcError);
    expect(error).toMatchObject({ code: 4000, message: 'producer broke', data: { at: 7 } });
  });

  it('hides an unexpected producer failure behind -32603', async () => {
    const { server } = streamingServer();
    const { client } = connect(server);
    const error = await collect(streamCall(client, 'crashAfter', { n: 0 })).catch(
      (e: unknown) => e,
    );
    expect(error).toMatchObject({ code: -32603, message: 'Internal error' });
    expect(JSON.stringify(error)).not.toContain('secret');
  });

  it('ends both sides when the connection drops', async () => {
    const { server, probe } = streamingServer();
    const { client } = connect(server);
    const iterator = streamCall<number>(client, 'forever', undefined, { window: 4 });
    await iterator.next();
    await client.close();
    const error = await (async () => {
      for (let i = 0; i < 100; i++) await iterator.next();
    })().catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ConnectionClosedError);
    await expect.poll(() => probe.returned).toBe(true);
  });

  it('delivers slow producers without waiting for a full window', async () => {
    const { server } = streamingServer();
    const { client } = connect(server);
    const started = Date.now();
    const iterator = streamCall<number>(client, 'ticks', { n: 3, ms: 20 }, { window: 1000 });
    expect((await iterator.next()).value).toBe(0);
    expect(Date.now() - started).toBeLessThan(500);
    expect(await collect(iterator)).toEqual([1, 2]);
  });

  it('lets pulls outlast default deadlines on both sides', async () => {
    const server = createServer({ handlerTimeout: 30 });
    cleanup.push(streams(server));
    server.method('slowTicks', async function* () {
      for (let i = 0; i < 2; i++) {
        await new Promise((r) => setTimeout(r, 60));
        yield i;
      }
    });
    const [a, b] = createMemoryTransportPair();
    server.connect(b);
    const client = createClient(a, { callTimeout: 30 });
    cleanup.push(() => client.close());
    expect(await collect(streamCall<number>(client, 'slowTicks'))).toEqual([0, 1]);
  });

  it('keeps streams to their connection', async () => {
    const { server } = streamingServer();
    const one = connect(server).client;
    const two = connect(server).client;
    const iterator = streamCall<number>(one, 'count', { to: 5 }, { window: 1 });
    await iterator.next();
    await expect(two.request('rpc.stream.next', { stream: 's1', max: 1 })).rejects.toMatchObject({
      code: STREAM_ENDED,
    });
    expect(await collect(iterator)).toEqual([2, 3, 4, 5]);
  });

  it('refuses streams beyond maxStreams with -32002, and ends idle streams', async () => {
    const { server, probe } = streamingServer({ maxStreams: 1, idleTimeout: 500 });
    const { client } = connect(server);
    const first = streamCall<number>(client, 'forever', undefined, { window: 1 });
    await first.next();
    await expect(streamCall(client, 'count', { to: 1 }).next()).rejects.toMatchObject({
      code: -32002,
    });
    await expect.poll(() => probe.returned, { timeout: 5000 }).toBe(true);
    // The idle stream is gone: the consumer is told why (not a silent end), and a new stream fits.
    const rest: number[] = [];
    const error = await (async () => {
      for await (const n of first) rest.push(n);
    })().catch((e: unknown) => e);
    expect(rest.length).toBeLessThanOrEqual(2);
    expect(error).toMatchObject({ code: STREAM_ENDED, data: { reason: 'idle' } });
    expect(await collect(streamCall(client, 'count', { to: 2 }))).toEqual([1, 2]);
  });

  it('fails the loop with a ProtocolError when the method does not stream', async () => {
    const { server } = streamingServer();
    const { client } = connect(server);
    await expect(collect(streamCall(client, 'plain'))).rejects.toBeInstanceOf(ProtocolError);
    await expect(collect(streamCall(client, 'missing'))).rejects.toMatchObject({ code: -32601 });
  });

  it('stops on abort with an AbortError and cancels the producer', async () => {
    const { server, probe } = streamingServer();
    const { client } = connect(server);
    const controller = new AbortController();
    const iterator = streamCall<number>(client, 'forever', undefined, {
      window: 2,
      signal: controller.signal,
    });
    await iterator.next();
    controller.abort();
    const error = await (async () => {
      for (let i = 0; i < 100; i++) await iterator.next();
    })().catch((e: unknown) => e);
    expect(error).toMatchObject({ code: 'ABORTED' });
    await expect.poll(() => probe.returned).toBe(true);
  });

  it('is removed, with its open streams, by its disposer', async () => {
    const probe = { returned: false };
    const server = createServer();
    const dispose = streams(server);
    server.method('gen', async function* () {
      try {
        yield 1;
        yield 2;
      } finally {
        probe.returned = true;
      }
    });
    const { client } = connect(server);
    const { stream } = await client.request<{ stream: string }>('gen');
    await client.request('rpc.stream.next', { stream, max: 1 });
    dispose();
    await expect.poll(() => probe.returned).toBe(true);
    await expect(client.request('rpc.stream.next', { stream: 's1' })).rejects.toMatchObject({
      code: -32601,
    });
  });
});

describe('cancel as a notification, and client-served streams', () => {
  it('accepts rpc.stream.cancel as a notification', async () => {
    const { server, probe } = streamingServer();
    const { client } = connect(server);
    const { stream } = await client.request<{ stream: string }>('forever');
    await client.request('rpc.stream.next', { stream, max: 1 });
    await client.notify('rpc.stream.cancel', { stream });
    await expect.poll(() => probe.returned).toBe(true);
    await expect(client.request('rpc.stream.next', { stream })).rejects.toMatchObject({
      code: STREAM_ENDED,
    });
  });

  it('lets a server connection pull a stream its peer serves', async () => {
    const local = createServer();
    cleanup.push(streams(local));
    local.method('events', async function* () {
      yield* ['a', 'b', 'c'];
    });
    const remote = createServer();
    const [a, b] = createMemoryTransportPair();
    const connection = remote.connect(b);
    const served = local.connect(a);
    cleanup.push(() => served.close());
    expect(
      await collect(streamCall<string>(connection, 'events', undefined, { window: 2 })),
    ).toEqual(['a', 'b', 'c']);
  });
});

describe('streams over stateless exchanges', () => {
  it('uses unguessable ids and serves pulls across handle() calls', async () => {
    const { server } = streamingServer();
    const open = JSON.parse(
      (await server.handle('{"jsonrpc":"2.0","id":1,"method":"count","params":{"to":3}}'))!,
    );
    const id = open.result.stream as string;
    expect(id).toMatch(/^[0-9a-f-]{36}$/);
    const pull = async (max: number) =>
      JSON.parse(
        (await server.handle(
          JSON.stringify({
            jsonrpc: '2.0',
            id: 2,
            method: 'rpc.stream.next',
            params: { stream: id, max },
          }),
        ))!,
      );
    expect((await pull(2)).result).toEqual({ items: [1, 2], done: false });
    expect((await pull(2)).result).toEqual({ items: [3], done: true });
    expect((await pull(2)).error.code).toBe(STREAM_ENDED);
  });
});

describe('idle expiry on the wire', () => {
  it('answers a late pull with -32010 and reason "idle", then forgets the stream', async () => {
    const { server, probe } = streamingServer({ idleTimeout: 200 });
    const open = JSON.parse((await server.handle('{"jsonrpc":"2.0","id":1,"method":"forever"}'))!);
    const id = open.result.stream as string;
    const pull = `{"jsonrpc":"2.0","id":2,"method":"rpc.stream.next","params":{"stream":"${id}","max":1}}`;
    expect(await server.handle(pull)).toBe(
      '{"jsonrpc":"2.0","id":2,"result":{"items":[0],"done":false}}',
    );
    await expect.poll(() => probe.returned).toBe(true);
    expect(await server.handle(pull)).toBe(
      `{"jsonrpc":"2.0","id":2,"error":{"code":-32010,"message":"Stream expired","data":{"stream":"${id}","reason":"idle"}}}`,
    );
    expect(await server.handle(pull)).toBe(
      `{"jsonrpc":"2.0","id":2,"error":{"code":-32010,"message":"Stream ended","data":{"stream":"${id}"}}}`,
    );
  }, 5000);
});

describe('helpers', () => {
  it('tells async iterables apart', () => {
    expect(isAsyncIterable((async function* () {})())).toBe(true);
    expect(isAsyncIterable([1, 2])).toBe(false);
    expect(isAsyncIterable('abc')).toBe(false);
    expect(isAsyncIterable(null)).toBe(false);
    expect(isAsyncIterable({ [Symbol.asyncIterator]: 1 })).toBe(false);
  });

  it('StreamEndedError carries -32010 and matches instanceof', () => {
    const error = new StreamEndedError();
    expect(error).toBeInstanceOf(JsonRpcError);
    expect(error.toErrorObject()).toEqual({ code: -32010, message: 'Stream ended' });
  });
});
