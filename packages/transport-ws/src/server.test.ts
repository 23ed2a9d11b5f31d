import { once } from 'node:events';
import { createServer as createHttpServer, request as httpRequest, type Server } from 'node:http';
import { connect as netConnect, type Socket } from 'node:net';
import { createClient } from '@jsonrpc-kit/client';
import {
  ConnectionClosedError,
  DEFAULT_MAX_MESSAGE_BYTES,
  RequestTooLargeError,
} from '@jsonrpc-kit/core';
import { createServer } from '@jsonrpc-kit/server';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { WebSocket } from 'ws';
import type { EchoConnection } from '../test/echo-handler.js';
import { createEchoHandler, type EchoHandler } from '../test/echo-handler.js';
import { closeCode, openRaw, waitFor, withTimeout, wsUrl } from '../test/helpers.js';
import { createWebSocketTransport } from './client-transport.js';
import {
  createWebSocketServer,
  type JsonRpcWebSocketServer,
  type WebSocketServerOptions,
} from './server.js';
import type { SocketTransport } from './socket-transport.js';

const cleanups: (() => unknown)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

async function start(
  options: Partial<WebSocketServerOptions> = {},
): Promise<{ wss: JsonRpcWebSocketServer<EchoConnection>; handler: EchoHandler; url: string }> {
  const handler = createEchoHandler();
  const wss = createWebSocketServer(handler, { port: 0, host: '127.0.0.1', ...options });
  cleanups.push(() => wss.close({ timeout: 100 }));
  await wss.ready;
  return { wss, handler, url: wsUrl(wss.port, options.path ?? '/') };
}

async function raw(url: string, options?: ConstructorParameters<typeof WebSocket>[2]) {
  const client = await openRaw(url, options);
  cleanups.push(() => client.ws.terminate());
  return client;
}

/** Sends an upgrade request by hand and returns the status line's code. */
function upgradeStatus(port: number, path: string, headers: Record<string, string> = {}) {
  return withTimeout(
    new Promise<number>((resolve, reject) => {
      const req = httpRequest({
        host: '127.0.0.1',
        port,
        path,
        headers: {
          Connection: 'Upgrade',
          Upgrade: 'websocket',
          'Sec-WebSocket-Version': '13',
          'Sec-WebSocket-Key': 'dGhlIHNhbXBsZSBub25jZQ==',
          ...headers,
        },
      });
      req.on('response', (res) => {
        res.resume();
        resolve(res.statusCode ?? 0);
      });
      req.on('upgrade', (res, socket) => {
        socket.destroy();
        resolve(res.statusCode ?? 0);
      });
      req.on('error', reject);
      req.end();
    }),
    3000,
    'upgrade answer',
  );
}

describe('createWebSocketServer', () => {
  it('rejects ambiguous listen options', () => {
    const handler = createEchoHandler();
    expect(() => createWebSocketServer(handler, {})).toThrow(TypeError);
    expect(() => createWebSocketServer(handler, { port: 0, noServer: true })).toThrow(TypeError);
    expect(DEFAULT_MAX_MESSAGE_BYTES).toBe(1024 * 1024);
  });

  it('serves a socket through server.connect with the connection facts', async () => {
    const { wss, handler, url } = await start({ path: '/rpc' });
    const client = await raw(url + '?token=1', { headers: { 'x-test': 'yes' } });
    client.ws.send('{"jsonrpc":"2.0","id":1,"method":"echo","params":[1,"a"]}');
    expect(await client.next()).toBe('{"jsonrpc":"2.0","id":1,"result":[1,"a"]}');
    const [connection] = handler.connections;
    expect(connection!.context.kind).toBe('ws');
    expect(connection!.context.url).toBe('/rpc?token=1');
    expect(connection!.context.headers?.['x-test']).toBe('yes');
    // The handshake's own headers are not kept; the others are.
    expect(Object.keys(connection!.context.headers!).sort()).toEqual(['host', 'x-test']);
    expect(connection!.context.remoteAddress).toBe('127.0.0.1');
    expect(wss.connections.has(connection!)).toBe(true);
    expect(wss.address()?.port).toBe(wss.port);
    client.ws.close();
    await connection!.closed;
    expect(connection!.closeError).toBeUndefined();
    expect(connection!.context.signal?.aborted).toBe(true);
    await waitFor(() => wss.connections.size === 0);
  });

  it('keeps big ids exact and answers 1,000 concurrent calls with the right ids', async () => {
    const { url } = await start();
    const client = await raw(url);
    client.ws.send('{"jsonrpc":"2.0","id":9007199254740993,"method":"echo"}');
    expect(await client.next()).toBe('{"jsonrpc":"2.0","id":9007199254740993,"result":null}');
    for (let i = 0; i < 1000; i++) {
      client.ws.send(
        `{"jsonrpc":"2.0","id":${i},"method":"${i % 2 ? 'echo' : 'sleep'}","params":[${i % 7}]}`,
      );
    }
    const seen = new Set<number>();
    for (let i = 0; i < 1000; i++) {
      const answer = JSON.parse(await client.next()) as { id: number; result: unknown };
      expect(answer.result).toEqual(answer.id % 2 ? [answer.id % 7] : 'slept');
      seen.add(answer.id);
    }
    expect(seen.size).toBe(1000);
  });

  it('answers a malformed frame and then a valid request on the same socket', async () => {
    const { url } = await start();
    const client = await raw(url);
    client.ws.send('{"jsonrpc":"2.0","id":1,"method":');
    client.ws.send('{"jsonrpc":"2.0","id":2,"method":"echo","params":{"a":1}}');
    const answers = [await client.next(), await client.next()].sort();
    expect(answers).toEqual([
      '{"jsonrpc":"2.0","id":2,"result":{"a":1}}',
      '{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"Parse error"}}',
    ]);
  });

  it('decodes binary frames as UTF-8 and refuses invalid ones with -32700', async () => {
    const { url, handler } = await start();
    const client = await raw(url);
    client.ws.send(Buffer.from('{"jsonrpc":"2.0","id":"é","method":"echo","params":["ü"]}'));
    expect(await client.next()).toBe('{"jsonrpc":"2.0","id":"é","result":["ü"]}');
    client.ws.send(Buffer.from([0x7b, 0xff, 0xfe, 0x7d]));
    expect(await client.next()).toBe(
      '{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"Parse error","data":"binary frame is not valid UTF-8"}}',
    );
    expect(handler.errors.map((e) => (e as { code?: string }).code)).toEqual(['TRANSPORT_ERROR']);
    client.ws.send('{"jsonrpc":"2.0","id":3,"method":"echo"}');
    expect(await client.next()).toBe('{"jsonrpc":"2.0","id":3,"result":null}');
    expect(client.ws.readyState).toBe(WebSocket.OPEN);
  });

  it('answers a message over maxMessageBytes -32004 with its id and keeps the socket open', async () => {
    const onError: unknown[] = [];
    const rpc = createServer({ onError: (_, info) => onError.push(info) });
    rpc.method('echo', (params: unknown) => params);
    const wss = createWebSocketServer(rpc, {
      port: 0,
      host: '127.0.0.1',
      maxMessageBytes: 1024,
    });
    cleanups.push(() => wss.close({ timeout: 100 }));
    await wss.ready;
    const client = await raw(wsUrl(wss.port, '/'));
    const params = `["${'x'.repeat(1500)}"]`;
    client.ws.send(`{"jsonrpc":"2.0","method":"echo","params":${params},"id":"big"}`);
    expect(JSON.parse(await client.next())).toEqual({
      jsonrpc: '2.0',
      id: 'big',
      error: { code: -32004, message: 'Request too large', data: { maxRequestBytes: 1024 } },
    });
    client.ws.send(`{"jsonrpc":"2.0","method":"echo","params":${params}}`);
    client.ws.send('{"jsonrpc":"2.0","id":2,"method":"echo","params":[1]}');
    expect(await client.next()).toBe('{"jsonrpc":"2.0","id":2,"result":[1]}');
    expect(onError).toEqual([
      { kind: 'message-too-large', level: 'warn', method: 'echo', id: 'big', notification: false },
      { kind: 'message-too-large', level: 'warn', method: 'echo', notification: true },
    ]);
    expect(client.ws.readyState).toBe(WebSocket.OPEN);
  });

  it("adopts the server's maxMessageBytes when maxMessageBytes is not given", async () => {
    const rpc = createServer({ maxMessageBytes: 4 * 1024 * 1024 });
    rpc.method('length', ([text]: [string]) => text.length);
    const wss = createWebSocketServer(rpc, { port: 0, host: '127.0.0.1' });
    cleanups.push(() => wss.close({ timeout: 100 }));
    await wss.ready;
    const client = await raw(wsUrl(wss.port, '/'));
    const text = 'x'.repeat(3 * 1024 * 1024);
    client.ws.send(JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'length', params: [text] }));
    expect(await client.next()).toBe(`{"jsonrpc":"2.0","id":1,"result":${text.length}}`);
  });

  it('closes only the socket that sends an oversized frame, with 1009', async () => {
    const { url, handler } = await start({ maxMessageBytes: 1024 });
    const big = await raw(url);
    const other = await raw(url);
    const code = closeCode(big.ws);
    big.ws.send('{"jsonrpc":"2.0","id":1,"method":"echo","params":["' + 'x'.repeat(3000) + '"]}');
    expect(await code).toBe(1009);
    other.ws.send('{"jsonrpc":"2.0","id":1,"method":"echo","params":["' + 'x'.repeat(900) + '"]}');
    expect(JSON.parse(await other.next()).id).toBe(1);
    await handler.connections[0]!.closed;
    expect(handler.connections[0]!.closeError).toBeInstanceOf(ConnectionClosedError);
    expect(handler.connections[0]!.closeError!.message).toContain('Max payload size exceeded');
  });

  it('reports a message over twice maxMessageBytes to onError as message-too-large, and the client is told why', async () => {
    const onError: Array<[unknown, unknown]> = [];
    const rpc = createServer({ onError: (error, info) => onError.push([error, info]) });
    rpc.method('echo', (params: unknown) => params);
    const wss = createWebSocketServer(rpc, { port: 0, host: '127.0.0.1', maxMessageBytes: 1024 });
    cleanups.push(() => wss.close({ timeout: 100 }));
    await wss.ready;
    const client = createClient(
      createWebSocketTransport({ url: wsUrl(wss.port, '/'), reconnect: false }),
    );
    cleanups.push(() => client.close());
    const failed = await client.request('echo', ['x'.repeat(3000)]).then(
      () => undefined,
      (error: unknown) => error,
    );
    expect(failed).toBeInstanceOf(ConnectionClosedError);
    expect((failed as Error).message).toMatch(/1009.*too large for the server/);
    await waitFor(() => onError.length > 0);
    expect(onError.map(([, info]) => info)).toEqual([
      { kind: 'message-too-large', level: 'warn', notification: false },
    ]);
    expect(onError[0]![0]).toBeInstanceOf(RequestTooLargeError);
  });

  it('refuses origins outside the allow-list with 403', async () => {
    const { wss } = await start({ allowedOrigins: ['https://app.example'] });
    expect(await upgradeStatus(wss.port, '/', { Origin: 'https://evil.example' })).toBe(403);
    expect(await upgradeStatus(wss.port, '/', { Origin: 'https://APP.example' })).toBe(101);
    expect(await upgradeStatus(wss.port, '/')).toBe(101);
    await waitFor(() => wss.connections.size === 0, 3000, 'test sockets to close');
  });

  it('lets an origin function decide, and a throwing one refuses', async () => {
    const { wss } = await start({
      allowedOrigins: (origin) => {
        if (origin === 'https://boom.example') throw new Error('boom');
        return origin === 'https://ok.example';
      },
    });
    expect(await upgradeStatus(wss.port, '/', { Origin: 'https://ok.example' })).toBe(101);
    expect(await upgradeStatus(wss.port, '/', { Origin: 'https://boom.example' })).toBe(403);
    expect(await upgradeStatus(wss.port, '/')).toBe(403);
  });

  it('refuses other paths with 400 and plain HTTP with 426', async () => {
    const { wss } = await start({ path: '/rpc' });
    expect(await upgradeStatus(wss.port, '/other')).toBe(400);
    expect(await upgradeStatus(wss.port, '/rpc?x=1')).toBe(101);
    const res = await fetch(`http://127.0.0.1:${wss.port}/rpc`);
    expect(res.status).toBe(426);
    await res.text();
  });

  it('shares a port with a plain HTTP handler', async () => {
    const http: Server = createHttpServer((req, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ via: 'http', url: req.url }));
    });
    http.listen(0, '127.0.0.1');
    await once(http, 'listening');
    cleanups.push(() => new Promise((r) => http.close(r)));
    const handler = createEchoHandler();
    const wss = createWebSocketServer(handler, { httpServer: http, path: '/ws' });
    cleanups.push(() => wss.close({ timeout: 100 }));
    await wss.ready;
    const port = wss.port;
    const res = await fetch(`http://127.0.0.1:${port}/api`, { method: 'POST', body: '{}' });
    expect(await res.json()).toEqual({ via: 'http', url: '/api' });
    const client = await raw(wsUrl(port, '/ws'));
    client.ws.send('{"jsonrpc":"2.0","id":7,"method":"echo"}');
    expect(await client.next()).toBe('{"jsonrpc":"2.0","id":7,"result":null}');
    await client.ws.close();
    await wss.close({ timeout: 100 });
    expect(http.listenerCount('upgrade')).toBe(0);
    expect(http.listening).toBe(true);
  });

  it('leaves other paths to other upgrade listeners of a shared server', async () => {
    const http: Server = createHttpServer();
    http.listen(0, '127.0.0.1');
    await once(http, 'listening');
    cleanups.push(() => new Promise((r) => http.close(r)));
    const a = createEchoHandler();
    const b = createEchoHandler();
    const wssA = createWebSocketServer(a, { httpServer: http, path: '/a' });
    const wssB = createWebSocketServer(b, { httpServer: http, path: '/b' });
    cleanups.push(
      () => wssA.close({ timeout: 100 }),
      () => wssB.close({ timeout: 100 }),
    );
    const port = (http.address() as { port: number }).port;
    const ca = await raw(wsUrl(port, '/a'));
    const cb = await raw(wsUrl(port, '/b'));
    ca.ws.send('{"jsonrpc":"2.0","id":1,"method":"echo"}');
    cb.ws.send('{"jsonrpc":"2.0","id":2,"method":"echo"}');
    expect(JSON.parse(await ca.next()).id).toBe(1);
    expect(JSON.parse(await cb.next()).id).toBe(2);
    expect(a.connections).toHaveLength(1);
    expect(b.connections).toHaveLength(1);
  });

  it('takes upgrades through handleUpgrade with noServer', async () => {
    const http: Server = createHttpServer();
    const handler = createEchoHandler();
    const wss = createWebSocketServer(handler, { noServer: true });
    http.on('upgrade', (req, socket, head) => wss.handleUpgrade(req, socket, head));
    http.listen(0, '127.0.0.1');
    await once(http, 'listening');
    cleanups.push(() => new Promise((r) => http.close(r)));
    cleanups.push(() => wss.close({ timeout: 100 }));
    expect(wss.address()).toBeNull();
    const client = await raw(wsUrl((http.address() as { port: number }).port));
    client.ws.send('{"jsonrpc":"2.0","id":1,"method":"echo"}');
    expect(await client.next()).toBe('{"jsonrpc":"2.0","id":1,"result":null}');
  });

  it('broadcasts one notification text to every connection', async () => {
    const { wss } = await start();
    const clients = await Promise.all([raw(wsUrl(wss.port)), raw(wsUrl(wss.port))]);
    await waitFor(() => wss.connections.size === 2);
    const encodings = vi.spyOn(Buffer, 'from');
    const sent = wss.broadcast('tick', { n: 1, s: 'é' });
    const encoded = encodings.mock.calls.length;
    encodings.mockRestore();
    await sent;
    expect(encoded).toBe(1); // once for every socket
    for (const client of clients) {
      expect(await client.next()).toBe(
        '{"jsonrpc":"2.0","method":"tick","params":{"n":1,"s":"é"}}',
      );
    }
    expect(() => wss.broadcast('bad', [10n as unknown as number])).toThrow(TypeError);
  });

  it('terminates a peer that does not pong and aborts its handlers', async () => {
    const { wss, handler, url } = await start({ heartbeat: { interval: 30, timeout: 40 } });
    const dead = await raw(url, { autoPong: false });
    const alive = await raw(url);
    dead.ws.send('{"jsonrpc":"2.0","id":1,"method":"sleep","params":[5000]}');
    await waitFor(() => handler.connections[0]?.signals.length === 1);
    const code = await closeCode(dead.ws);
    expect(code).toBe(1006);
    const connection = handler.connections[0]!;
    await connection.closed;
    expect(connection.closeError?.message).toContain('no pong');
    expect(connection.signals[0]!.aborted).toBe(true);
    // The peer that answers pings stays.
    await new Promise((r) => setTimeout(r, 150));
    expect(alive.ws.readyState).toBe(WebSocket.OPEN);
    expect(wss.connections.size).toBe(1);
  });

  it('shuts down gracefully: in-flight calls finish, then 1001, new upgrades get 503', async () => {
    const http: Server = createHttpServer();
    http.listen(0, '127.0.0.1');
    await once(http, 'listening');
    cleanups.push(() => new Promise((r) => http.close(r)));
    const handler = createEchoHandler();
    const wss = createWebSocketServer(handler, { httpServer: http });
    cleanups.push(() => wss.close({ timeout: 100 }));
    const client = await raw(wsUrl(wss.port));
    client.ws.send('{"jsonrpc":"2.0","id":1,"method":"sleep","params":[150]}');
    await waitFor(() => handler.connections[0]?.inFlight === 1);
    const code = closeCode(client.ws);
    const port = wss.port;
    const closing = wss.close({ timeout: 2000 });
    expect(await upgradeStatus(port, '/')).toBe(503);
    expect(await client.next()).toBe('{"jsonrpc":"2.0","id":1,"result":"slept"}');
    expect(await code).toBe(1001);
    await closing;
    expect(wss.connections.size).toBe(0);
    expect(http.listenerCount('upgrade')).toBe(0);
    expect(await wss.close()).toBeUndefined();
  });

  it('stops listening on its own port when closing', async () => {
    const { wss, url } = await start();
    const client = await raw(url);
    const code = closeCode(client.ws);
    await wss.close({ timeout: 100 });
    expect(await code).toBe(1001);
    expect(wss.address()).toBeNull();
    await expect(openRaw(url)).rejects.toThrow(/ECONNREFUSED/);
  });

  it('shuts down at the deadline even when calls are still running', async () => {
    const { wss, handler, url } = await start();
    const client = await raw(url);
    client.ws.send('{"jsonrpc":"2.0","id":1,"method":"sleep","params":[10000]}');
    await waitFor(() => handler.connections[0]?.inFlight === 1);
    const code = closeCode(client.ws);
    const started = Date.now();
    await wss.close({ timeout: 100 });
    expect(Date.now() - started).toBeLessThan(2000);
    expect(await code).toBe(1001);
    expect(handler.connections[0]!.signals[0]!.aborted).toBe(true);
    expect(client.received).toEqual([]);
  });

  it('frames sent in one turn reach the peer together', async () => {
    const { wss, handler } = await start();
    const socket: Socket = netConnect(wss.port, '127.0.0.1');
    cleanups.push(() => socket.destroy());
    socket.write(
      'GET / HTTP/1.1\r\nHost: x\r\nConnection: Upgrade\r\nUpgrade: websocket\r\n' +
        'Sec-WebSocket-Version: 13\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n\r\n',
    );
    const chunks: Buffer[] = [];
    socket.on('data', (chunk) => chunks.push(chunk));
    await waitFor(() => handler.connections.length === 1);
    await waitFor(() => chunks.length === 1);
    expect(chunks[0]!.toString()).toContain('101 Switching Protocols');
    const connection = handler.connections[0]!;
    void connection.notify('a');
    void connection.notify('b');
    void connection.notify('c');
    await waitFor(() => chunks.length >= 2);
    await new Promise((r) => setTimeout(r, 30));
    expect(chunks).toHaveLength(2);
    const frames = chunks[1]!;
    // Three unmasked text frames back to back: 0x81, length, payload.
    const texts: string[] = [];
    for (let at = 0; at < frames.length; ) {
      expect(frames[at]).toBe(0x81);
      const length = frames[at + 1]!;
      texts.push(frames.subarray(at + 2, at + 2 + length).toString());
      at += 2 + length;
    }
    expect(texts).toEqual([
      '{"jsonrpc":"2.0","method":"a"}',
      '{"jsonrpc":"2.0","method":"b"}',
      '{"jsonrpc":"2.0","method":"c"}',
    ]);
  });

  it('stops reading a socket whose send buffer is over the bound until it drains', async () => {
    const { handler, url } = await start({ backpressure: { highWaterMark: 64 * 1024 } });
    const client = await raw(url);
    await waitFor(() => handler.connections.length === 1);
    const connection = handler.connections[0]!;
    const rawSocket = (client.ws as unknown as { _socket: Socket })._socket;
    rawSocket.pause();
    const payload = 'x'.repeat(256 * 1024);
    let blocked: Promise<void> | undefined;
    for (let i = 0; i < 400 && blocked === undefined; i++) {
      const sent = connection.notify('big', [payload]);
      const settled = await Promise.race([
        sent.then(() => true),
        new Promise((r) => setTimeout(() => r(false), 50)),
      ]);
      if (!settled) blocked = sent;
    }
    expect(blocked).toBeDefined();
    const serverSocket = (connection.transport as SocketTransport<WebSocket>).socket;
    expect(serverSocket.isPaused).toBe(true);
    rawSocket.resume();
    await withTimeout(blocked!, 5000, 'drain');
    expect(serverSocket.isPaused).toBe(false);
  });
});
