import { createClient } from '@jsonrpc-kit/client';
import {
  createMemoryTransportPair,
  type JsonRpcError,
  losslessNumbers,
  JsonRpcError as WireError,
} from '@jsonrpc-kit/core';
import { createProxy, createServer, type UpstreamHandlers } from '@jsonrpc-kit/server';
import { type SpawnedTransport, spawnTransport } from '@jsonrpc-kit/transport-stdio';
import { createWebSocketServer } from '@jsonrpc-kit/transport-ws';
import { createWebSocketTransport } from '@jsonrpc-kit/transport-ws/client';
import { afterEach, describe, expect, it } from 'vitest';
import { openRawSocket } from './raw-socket.js';
import { stdioFixture } from './stdio-fixtures/fixture.js';

const cleanups: (() => unknown)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));

async function until(condition: () => boolean | Promise<boolean>, what: string): Promise<void> {
  for (let i = 0; i < 400; i++) {
    if (await condition()) return;
    await sleep(10);
  }
  throw new Error(`timed out waiting for ${what}`);
}

/** A WebSocket front that spawns one stdio child per downstream connection. */
async function front(options: Parameters<typeof createProxy>[1] = {}) {
  const children: SpawnedTransport[] = [];
  const proxy = createProxy((handlers: UpstreamHandlers) => {
    const child = spawnTransport(process.execPath, [stdioFixture('proxy-upstream.mjs')], {
      framing: 'content-length',
      stderr: 'ignore',
    });
    children.push(child);
    cleanups.push(async () => {
      child.process.kill('SIGKILL');
      await child.exit;
    });
    return createClient(child, { ...handlers, callTimeout: 10_000 });
  }, options);
  const wss = createWebSocketServer(proxy, { port: 0, host: '127.0.0.1' });
  cleanups.push(() => wss.close());
  await wss.ready;
  const url = `ws://127.0.0.1:${wss.address()!.port}/`;
  return { proxy, wss, url, children };
}

describe('createProxy: a WebSocket front proxying a stdio child', () => {
  it('raw frames: results and error answers (code, message, data) pass through unchanged', async () => {
    const { url } = await front();
    const socket = await openRawSocket(url);
    cleanups.push(() => socket.close());
    const next = socket.next;
    socket.send('{"jsonrpc":"2.0","id":"a","method":"add","params":[2,3]}');
    expect(await next()).toBe('{"jsonrpc":"2.0","id":"a","result":5}');
    socket.send('{"jsonrpc":"2.0","id":7,"method":"fail"}');
    expect(await next()).toBe(
      '{"jsonrpc":"2.0","id":7,"error":{"code":-32042,"message":"Custom failure","data":{"detail":[1,2],"note":null}}}',
    );
    socket.send('{"jsonrpc":"2.0","id":8,"method":"nope"}');
    expect(await next()).toBe(
      '{"jsonrpc":"2.0","id":8,"error":{"code":-32601,"message":"Method not found"}}',
    );
    // A notification goes upstream; the upstream's notification comes back.
    socket.send('{"jsonrpc":"2.0","method":"ping","params":{"n":1}}');
    expect(await next()).toBe('{"jsonrpc":"2.0","method":"pong","params":{"n":1}}');
  });

  it('cancellation, progress and server→client calls pass through', async () => {
    const { url } = await front();
    const asked: unknown[] = [];
    const client = createClient(createWebSocketTransport({ url }), {
      sendCancel: true,
      callTimeout: 10_000,
      onRequest: (request) => {
        asked.push(request.params);
        if ((request.params as { refuse?: boolean }).refuse) {
          throw new WireError(-32099, 'Refused downstream', { why: 'test' });
        }
        return { confirmed: true };
      },
    });
    cleanups.push(() => client.close());

    // The downstream cancel reaches the upstream handler.
    const controller = new AbortController();
    const slow = client.request('slow', {}, { signal: controller.signal });
    await sleep(50);
    controller.abort();
    await expect(slow).rejects.toMatchObject({ code: 'ABORTED' });
    await until(
      async () => (await client.request<number>('cancelled')) === 1,
      'the upstream cancel',
    );

    // Upstream progress reaches the downstream caller.
    const steps: unknown[] = [];
    expect(await client.request('count', {}, { onProgress: (value) => steps.push(value) })).toBe(
      'counted',
    );
    expect(steps).toEqual([{ step: 1 }, { step: 2 }, { step: 3 }]);

    // The upstream server calls its client: the call reaches the downstream client.
    expect(await client.request('ask', { question: 'sure?' })).toEqual({ confirmed: true });
    expect(asked).toEqual([{ question: 'sure?' }]);
    // The downstream client's error answer goes back to the upstream server unchanged.
    const refused = await client.request('ask', { refuse: true }).then(
      () => undefined,
      (error: JsonRpcError) => error,
    );
    expect(refused).toMatchObject({
      code: -32099,
      message: 'Refused downstream',
      data: { why: 'test' },
    });
  });

  it('each downstream connection gets its own child, which ends with the connection', async () => {
    const { url, children, proxy } = await front();
    const facts: unknown[] = [];
    proxy.use((ctx, next) => {
      facts.push([ctx.transport.kind, ctx.transport.signal instanceof AbortSignal]);
      return next();
    });
    const one = createClient(createWebSocketTransport({ url }));
    const two = createClient(createWebSocketTransport({ url }));
    cleanups.push(
      () => one.close(),
      () => two.close(),
    );
    expect(await one.request('add', [1, 1])).toBe(2);
    expect(await two.request('add', [2, 2])).toBe(4);
    expect(children).toHaveLength(2);
    // The WebSocket's facts reach the proxy's middleware as they are (its lazy signal included).
    expect(facts).toEqual([
      ['ws', true],
      ['ws', true],
    ]);
    await one.close();
    const exit = await Promise.race([children[0]!.exit, sleep(5_000).then(() => 'still running')]);
    expect(exit).not.toBe('still running');
    expect(await two.request('add', [3, 3])).toBe(6);
  });

  it('the child exiting closes the downstream connection', async () => {
    const { url, children } = await front();
    const client = createClient(createWebSocketTransport({ url, reconnect: false }));
    cleanups.push(() => client.close());
    expect(await client.request('add', [1, 2])).toBe(3);
    children[0]!.process.kill('SIGKILL');
    const closed = await Promise.race([client.closed.then(() => 'closed'), sleep(5_000)]);
    expect(closed).toBe('closed');
  });

  it('with callContext, the deadline and meta go upstream', async () => {
    const { url } = await front({ callContext: true });
    const client = createClient(createWebSocketTransport({ url }));
    cleanups.push(() => client.close());
    expect(
      await client.request('context', {}, { meta: { tenant: 'acme' }, timeout: 8_000 }),
    ).toEqual({ meta: { tenant: 'acme' }, secondsLeft: 8 });
  });
});

describe('createProxy with a shared upstream (memory transports)', () => {
  it('forwards over handle() and connections alike; local failures answer -32603', async () => {
    const upstreamServer = createServer();
    upstreamServer.method('echo', (params) => params);
    const [a, b] = createMemoryTransportPair();
    upstreamServer.connect(b);
    const upstream = createClient(a);
    cleanups.push(() => upstream.close());
    const proxy = createProxy(upstream);
    const order: string[] = [];
    proxy.use(async (ctx, next) => {
      order.push(ctx.method);
      return next();
    });
    expect(await proxy.handle('{"jsonrpc":"2.0","id":1,"method":"echo","params":{"x":[1]}}')).toBe(
      '{"jsonrpc":"2.0","id":1,"result":{"x":[1]}}',
    );
    expect(order).toEqual(['echo']);
    await upstream.close();
    expect(await proxy.handle('{"jsonrpc":"2.0","id":2,"method":"echo"}')).toBe(
      '{"jsonrpc":"2.0","id":2,"error":{"code":-32603,"message":"Upstream unavailable"}}',
    );
  });

  it('keeps every digit of big integers, both ways, when the proxy and its upstream client read them losslessly', async () => {
    const upstreamServer = createServer({ codec: losslessNumbers });
    upstreamServer.method('echo', (params) => params);
    const [a, b] = createMemoryTransportPair();
    upstreamServer.connect(b);
    const text = '{"jsonrpc":"2.0","id":1,"method":"echo","params":[18446744073709551617,1.5]}';
    const exact = '{"jsonrpc":"2.0","id":1,"result":[18446744073709551617,1.5]}';
    const upstream = createClient(a, { codec: losslessNumbers });
    cleanups.push(() => upstream.close());
    expect(await createProxy(upstream, { codec: losslessNumbers }).handle(text)).toBe(exact);
    // Without the codec on the proxy, JSON.parse rounds the number on the way in.
    expect(await createProxy(upstream).handle(text)).not.toBe(exact);
  });
});
