import { createServer as createHttpServer, type Server as HttpServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createClient } from '@jsonrpc-kit/client';
import { createMemoryTransportPair } from '@jsonrpc-kit/core';
import { createServer, type Server } from '@jsonrpc-kit/server';
import {
  createWebSocketServer,
  createWebSocketTransport,
  type JsonRpcWebSocketServer,
} from '@jsonrpc-kit/transport-ws';
import { afterEach, describe, expect, it } from 'vitest';
import { restartablePort } from '../../../tests/support/restart-port.js';
import { createReconnectSignal } from './reconnect-signal.js';
import { streamCall } from './stream-client.js';
import { resumable, streams } from './stream-server.js';

const cleanup: Array<() => Promise<unknown> | unknown> = [];
afterEach(async () => {
  for (const f of cleanup.splice(0).reverse()) await f();
});

/** A server whose `count` ([n]: 1..n) is resumable and whose `plain` ([n]) is not. */
function countingServer(opened: number[] = []): Server {
  const server = createServer();
  streams(server);
  server.method(
    'count',
    resumable(async function* ([n]: [number], from) {
      opened.push(from);
      for (let i = from + 1; i <= n; i++) yield i;
    }),
  );
  server.method('plain', async function* ([n]: [number]) {
    for (let i = 1; i <= n; i++) yield i;
  });
  return server;
}

describe('resumable streams on the wire', () => {
  it('says "resumable" in the handle and re-opens from a cursor', async () => {
    const server = countingServer();
    const [a, b] = createMemoryTransportPair();
    server.connect(b);
    const answers: string[] = [];
    await a.start({ onMessage: (m) => answers.push(m), onClose: () => {} });
    cleanup.push(() => a.close());
    const exchange = async (text: string): Promise<string> => {
      const before = answers.length;
      await a.send(text);
      await expect.poll(() => answers.length).toBe(before + 1);
      return answers[before]!;
    };
    expect(await exchange('{"jsonrpc":"2.0","id":1,"method":"count","params":[5]}')).toBe(
      '{"jsonrpc":"2.0","id":1,"result":{"stream":"s1","resumable":true}}',
    );
    expect(
      await exchange(
        '{"jsonrpc":"2.0","id":2,"method":"count","params":{"rpc.stream.resume":{"from":3,"params":[5]}}}',
      ),
    ).toBe('{"jsonrpc":"2.0","id":2,"result":{"stream":"s2","resumable":true}}');
    expect(
      await exchange(
        '{"jsonrpc":"2.0","id":3,"method":"rpc.stream.next","params":{"stream":"s2","max":10}}',
      ),
    ).toBe('{"jsonrpc":"2.0","id":3,"result":{"items":[4,5],"done":true}}');
    // A stream that is not resumable says nothing of the kind, and refuses a resume.
    expect(await exchange('{"jsonrpc":"2.0","id":4,"method":"plain","params":[2]}')).toBe(
      '{"jsonrpc":"2.0","id":4,"result":{"stream":"s3"}}',
    );
    expect(
      await exchange(
        '{"jsonrpc":"2.0","id":5,"method":"plain","params":{"rpc.stream.resume":{"from":1,"params":[2]}}}',
      ),
    ).toBe(
      '{"jsonrpc":"2.0","id":5,"error":{"code":-32602,"message":"This stream is not resumable","data":[{"path":"rpc.stream.resume","message":"The method is not resumable"}]}}',
    );
    expect(
      await exchange(
        '{"jsonrpc":"2.0","id":6,"method":"count","params":{"rpc.stream.resume":{"from":-1}}}',
      ),
    ).toBe(
      '{"jsonrpc":"2.0","id":6,"error":{"code":-32602,"message":"Invalid params","data":[{"path":"rpc.stream.resume.from","message":"Expected an integer >= 0"}]}}',
    );
  });
});

async function listenOn(http: HttpServer, port: number): Promise<number> {
  await new Promise<void>((resolve, reject) => {
    http.once('error', reject);
    http.listen(port, '127.0.0.1', () => resolve());
  });
  return (http.address() as AddressInfo).port;
}

interface Running {
  readonly port: number;
  stop(): Promise<void>;
}

async function serveWebSocket(server: Server, port: number): Promise<Running> {
  const http = createHttpServer();
  const wss: JsonRpcWebSocketServer = createWebSocketServer(server, {
    httpServer: http,
    path: '/ws',
  });
  const bound = await listenOn(http, port);
  return {
    port: bound,
    async stop() {
      await wss.close({ timeout: 0 });
      http.closeAllConnections();
      await new Promise((resolve) => http.close(resolve));
    },
  };
}

describe('resuming over a real WebSocket server restart', () => {
  it('continues the stream after the server comes back, with no gap and no repeat', async () => {
    const opened: number[] = [];
    const first = await serveWebSocket(countingServer(opened), await restartablePort());
    let running: Running = first;
    cleanup.push(() => running.stop());
    const reconnects = createReconnectSignal();
    const transport = createWebSocketTransport({
      url: `ws://127.0.0.1:${first.port}/ws`,
      reconnect: { strategy: 'fixed', delay: 20, jitter: 0, maxAttempts: 100 },
      onReconnect: reconnects.onReconnect,
    });
    const client = createClient(transport);
    cleanup.push(() => client.close());

    const items: number[] = [];
    const iterator = streamCall<number>(client, 'count', [50], {
      window: 4,
      resume: reconnects,
      resumeTimeout: 5_000,
    });
    for (let i = 0; i < 6; i++) {
      const { value } = await iterator.next();
      items.push(value as number);
    }
    await first.stop();
    running = await serveWebSocket(countingServer(opened), first.port);
    for await (const n of iterator) items.push(n);

    expect(items).toEqual(Array.from({ length: 50 }, (_, i) => i + 1));
    expect(reconnects.count).toBe(1);
    // Opened at 0, then re-opened once, from the items the client had received by the drop.
    expect(opened).toHaveLength(2);
    expect(opened[0]).toBe(0);
    expect(opened[1]).toBeGreaterThanOrEqual(6);
  }, 15_000);

  it('re-opens when the drop came while no pull was in flight (the old id means nothing now)', async () => {
    const opened: number[] = [];
    const first = await serveWebSocket(countingServer(opened), await restartablePort());
    let running: Running = first;
    cleanup.push(() => running.stop());
    const reconnects = createReconnectSignal();
    const transport = createWebSocketTransport({
      url: `ws://127.0.0.1:${first.port}/ws`,
      reconnect: { strategy: 'fixed', delay: 20, jitter: 0, maxAttempts: 100 },
      onReconnect: reconnects.onReconnect,
    });
    const client = createClient(transport);
    cleanup.push(() => client.close());
    const iterator = streamCall<number>(client, 'count', [30], { window: 4, resume: reconnects });
    const items = [(await iterator.next()).value as number];
    // The client fills its buffer, then stops pulling: nothing is in flight when the server goes.
    await expect.poll(() => client.pending).toBe(0);
    await first.stop();
    running = await serveWebSocket(countingServer(opened), first.port);
    await expect.poll(() => reconnects.count, { timeout: 5_000 }).toBe(1);
    for await (const n of iterator) items.push(n);
    expect(items).toEqual(Array.from({ length: 30 }, (_, i) => i + 1));
    expect(opened).toHaveLength(2);
  }, 15_000);

  it('without `resume`, a drop ends the loop with CONNECTION_CLOSED', async () => {
    const running = await serveWebSocket(countingServer(), 0);
    const transport = createWebSocketTransport({
      url: `ws://127.0.0.1:${running.port}/ws`,
      reconnect: false,
    });
    const client = createClient(transport);
    cleanup.push(() => client.close());
    const iterator = streamCall<number>(client, 'count', [1_000_000], { window: 2 });
    await iterator.next();
    await running.stop();
    const error = await (async () => {
      for (let i = 0; i < 1_000; i++) await iterator.next();
    })().catch((e: unknown) => e);
    expect(error).toMatchObject({ code: 'CONNECTION_CLOSED' });
  });

  it('gives up after resumeTimeout when no reconnect comes', async () => {
    const running = await serveWebSocket(countingServer(), 0);
    const reconnects = createReconnectSignal();
    const transport = createWebSocketTransport({
      url: `ws://127.0.0.1:${running.port}/ws`,
      reconnect: false,
    });
    const client = createClient(transport);
    cleanup.push(() => client.close());
    const iterator = streamCall<number>(client, 'count', [1_000_000], {
      window: 2,
      resume: reconnects,
      resumeTimeout: 50,
    });
    await iterator.next();
    await running.stop();
    const error = await (async () => {
      for (let i = 0; i < 1_000; i++) await iterator.next();
    })().catch((e: unknown) => e);
    expect(error).toMatchObject({ code: 'CONNECTION_CLOSED' });
  });
});

describe('createReconnectSignal', () => {
  it('counts reconnects and wakes waiters past a count; an abort stops the wait', async () => {
    const signal = createReconnectSignal();
    let woke = false;
    const waiting = signal.after(0).then(() => {
      woke = true;
    });
    await Promise.resolve();
    expect(woke).toBe(false);
    signal.onReconnect();
    await waiting;
    expect(woke).toBe(true);
    expect(signal.count).toBe(1);
    await expect(signal.after(0)).resolves.toBeUndefined();
    const controller = new AbortController();
    const stopped = signal.after(1, controller.signal);
    controller.abort(new Error('stop'));
    await expect(stopped).rejects.toThrow('stop');
  });
});

describe('resume gives up at once when the client is closed', () => {
  it('ends the loop with CONNECTION_CLOSED without waiting for resumeTimeout', async () => {
    const server = countingServer();
    const [a, b] = createMemoryTransportPair();
    server.connect(b);
    const client = createClient(a);
    const iterator = streamCall<number>(client, 'count', [1_000_000], {
      window: 2,
      resume: createReconnectSignal(),
      resumeTimeout: 60_000,
    });
    expect((await iterator.next()).value).toBe(1);
    await client.close();
    const error = await (async () => {
      for (let i = 0; i < 1_000; i++) await iterator.next();
    })().catch((e: unknown) => e);
    expect(error).toMatchObject({ code: 'CONNECTION_CLOSED' });
  }, 5_000);
});
