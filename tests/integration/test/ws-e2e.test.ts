import { type Client, createClient } from '@jsonrpc-kit/client';
import {
  ConnectionClosedError,
  type JsonRpcNotification,
  MethodNotFoundError,
} from '@jsonrpc-kit/core';
import type { Connection } from '@jsonrpc-kit/server';
import { createServer, type Server } from '@jsonrpc-kit/server';
import {
  createWebSocketServer,
  createWebSocketTransport,
  type JsonRpcWebSocketServer,
  type WebSocketTransport,
  type WebSocketTransportOptions,
} from '@jsonrpc-kit/transport-ws';
import { afterEach, describe, expect, it } from 'vitest';
import { restartablePort } from '../../support/restart-port.js';

const cleanups: (() => unknown)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) {
    try {
      await cleanup();
    } catch {
      // Already closed.
    }
  }
});

async function waitFor(check: () => boolean, ms = 3000): Promise<void> {
  const end = Date.now() + ms;
  while (!check()) {
    if (Date.now() > end) throw new Error('timed out');
    await new Promise((r) => setTimeout(r, 5));
  }
}

function rpcServer(): Server {
  const server = createServer();
  server.method('add', ([a, b]: [number, number]) => a + b);
  server.method('sleep', ([ms]: [number], ctx) => {
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => resolve('slept'), ms);
      ctx.signal.addEventListener('abort', () => {
        clearTimeout(timer);
        reject(ctx.signal.reason);
      });
    });
  });
  server.method('subscribe', async (_params, ctx) => {
    await ctx.peer!.notify('tick', { n: 1 });
    return 'subscribed';
  });
  server.method('askClient', async ([question]: [string], ctx) => {
    const answer = await ctx.peer!.request<string>('answer', [question]);
    return `client said ${answer}`;
  });
  return server;
}

async function serve(server: Server, port = 0): Promise<JsonRpcWebSocketServer<Connection>> {
  const wss = createWebSocketServer(server, { port, host: '127.0.0.1' });
  cleanups.push(() => wss.close({ timeout: 50 }));
  await wss.ready;
  return wss;
}

function connect(
  port: number,
  options: Partial<WebSocketTransportOptions> = {},
  clientOptions: Parameters<typeof createClient>[1] = {},
): { client: Client; transport: WebSocketTransport } {
  const transport = createWebSocketTransport({ url: `ws://127.0.0.1:${port}`, ...options });
  const client = createClient(transport, clientOptions);
  cleanups.push(() => client.close());
  return { client, transport };
}

describe('client × server over WebSocket', () => {
  it('calls, pushes and server-to-client requests', async () => {
    const wss = await serve(rpcServer());
    const ticks: JsonRpcNotification[] = [];
    const { client } = connect(
      wss.port,
      {},
      {
        onNotification: (n) => {
          ticks.push(n);
        },
        onRequest: (request) => {
          if (request.method !== 'answer') throw new MethodNotFoundError();
          return `yes to ${(request.params as string[])[0]}`;
        },
      },
    );
    expect(await client.request('add', [2, 3])).toBe(5);
    expect(await client.request('subscribe')).toBe('subscribed');
    await waitFor(() => ticks.length === 1);
    expect(ticks[0]).toEqual({ jsonrpc: '2.0', method: 'tick', params: { n: 1 } });
    expect(await client.request('askClient', ['ping?'])).toBe('client said yes to ping?');
    await expect(client.request('nope')).rejects.toBeInstanceOf(MethodNotFoundError);

    await wss.broadcast('news', ['all']);
    await waitFor(() => ticks.length === 2);
    expect(ticks[1]!.method).toBe('news');
    const [connection] = wss.connections;
    await connection!.notify('direct', { to: 'you' });
    await waitFor(() => ticks.length === 3);
  });

  it('answers 1,000 concurrent in-flight calls with the right ids', async () => {
    const wss = await serve(rpcServer());
    const { client } = connect(wss.port);
    const results = await Promise.all(
      Array.from({ length: 1000 }, (_, i) => client.request<number>('add', [i, 1])),
    );
    expect(results).toEqual(Array.from({ length: 1000 }, (_, i) => i + 1));
    expect(client.pending).toBe(0);
  });

  it('rejects calls when the server dies, reconnects when it returns, and works again', async () => {
    const first = await serve(rpcServer(), await restartablePort());
    const port = first.port;
    const reconnected: number[] = [];
    const { client, transport } = connect(port, {
      reconnect: { strategy: 'exponential', delay: 20, maxDelay: 100, jitter: 0 },
      onReconnect: () => reconnected.push(1),
    });
    expect(await client.request('add', [1, 1])).toBe(2);
    const inFlight = client.request('sleep', [10_000]);
    inFlight.catch(() => {});
    await waitFor(() => first.connections.size === 1 && [...first.connections][0]!.inFlight === 1);
    await first.close({ timeout: 0 });
    await expect(inFlight).rejects.toBeInstanceOf(ConnectionClosedError);
    expect(client.pending).toBe(0);
    await waitFor(() => transport.state === 'reconnecting');
    // A call made while disconnected waits in the queue and goes out once after reconnecting.
    const queued = client.request('add', [20, 22]);
    await new Promise((r) => setTimeout(r, 100));
    const rpc = rpcServer();
    let adds = 0;
    rpc.use(async (ctx, next) => {
      if (ctx.method === 'add') adds++;
      return next();
    });
    await serve(rpc, port);
    expect(await queued).toBe(42);
    expect(reconnected).toEqual([1]);
    expect(await client.request('add', [1, 2])).toBe(3);
    expect(adds).toBe(2);
  });

  it('lets in-flight calls finish on graceful shutdown', async () => {
    const wss = await serve(rpcServer());
    const { client, transport } = connect(wss.port, { reconnect: false });
    const call = client.request('sleep', [100]);
    await waitFor(() => [...wss.connections][0]?.inFlight === 1);
    await wss.close({ timeout: 2000 });
    expect(await call).toBe('slept');
    await transport.closed;
    expect(transport.state).toBe('closed');
  });

  it('aborts handlers of a connection cut by the shutdown deadline', async () => {
    const server = rpcServer();
    let aborted = false;
    server.method('hang', (_p, ctx) => {
      return new Promise((_, reject) => {
        ctx.signal.addEventListener('abort', () => {
          aborted = true;
          reject(ctx.signal.reason);
        });
      });
    });
    const wss = await serve(server);
    const { client } = connect(wss.port, { reconnect: false });
    const call = client.request('hang');
    call.catch(() => {});
    await waitFor(() => [...wss.connections][0]?.inFlight === 1);
    await wss.close({ timeout: 50 });
    await expect(call).rejects.toBeInstanceOf(ConnectionClosedError);
    await waitFor(() => aborted);
  });
});
