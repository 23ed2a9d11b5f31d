import { once } from 'node:events';
import type { AddressInfo } from 'node:net';
import { ConnectionClosedError, TransportError, type TransportHandler } from '@jsonrpc-kit/core';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { WebSocket, WebSocketServer } from 'ws';
import { restartablePort } from '../../../tests/support/restart-port.js';
import { createEchoHandler } from '../test/echo-handler.js';
import { waitFor, withTimeout, wsUrl } from '../test/helpers.js';
import {
  createWebSocketTransport,
  type WebSocketTransport,
  type WebSocketTransportOptions,
  type WebSocketTransportState,
} from './client-transport.js';
import { createWebSocketServer, type JsonRpcWebSocketServer } from './server.js';

const cleanups: (() => unknown)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

interface Recorder extends TransportHandler {
  readonly messages: string[];
  readonly errors: Error[];
  readonly events: string[];
  closeError: Error | undefined;
  closes: number;
  next(): Promise<string>;
}

function recorder(): Recorder {
  const waiters: ((text: string) => void)[] = [];
  const queue: string[] = [];
  const r: Recorder = {
    messages: [],
    errors: [],
    events: [],
    closeError: undefined,
    closes: 0,
    onMessage(text) {
      r.messages.push(text);
      const waiter = waiters.shift();
      if (waiter) waiter(text);
      else queue.push(text);
    },
    onClose(error) {
      r.closes++;
      r.closeError = error;
      r.events.push('close');
    },
    onError(error) {
      r.errors.push(error);
    },
    onDisconnect(error) {
      r.events.push(`disconnect:${error?.message ?? ''}`);
    },
    onReconnect() {
      r.events.push('reconnect');
    },
    next() {
      const queued = queue.shift();
      if (queued !== undefined) return Promise.resolve(queued);
      return withTimeout(new Promise<string>((res) => waiters.push(res)), 3000, 'message');
    },
  };
  return r;
}

async function echoServer(port = 0): Promise<JsonRpcWebSocketServer> {
  const wss = createWebSocketServer(createEchoHandler(), { port, host: '127.0.0.1' });
  cleanups.push(() => wss.close({ timeout: 50 }));
  await wss.ready;
  return wss;
}

function transport(options: WebSocketTransportOptions): WebSocketTransport {
  const t = createWebSocketTransport(options);
  cleanups.push(() => t.close());
  return t;
}

async function rawServer(options: ConstructorParameters<typeof WebSocketServer>[0] = {}) {
  const wss = new WebSocketServer({ port: 0, host: '127.0.0.1', ...options });
  await once(wss, 'listening');
  cleanups.push(
    () =>
      new Promise<void>((resolve) => {
        for (const client of wss.clients) client.terminate();
        wss.close(() => resolve());
      }),
  );
  return { wss, url: wsUrl((wss.address() as AddressInfo).port) };
}

describe('createWebSocketTransport', () => {
  it('opens, moves text both ways, and closes once', async () => {
    const wss = await echoServer();
    const states: WebSocketTransportState[] = [];
    const t = transport({ url: wsUrl(wss.port), onStateChange: (s) => states.push(s) });
    const r = recorder();
    expect(t.state).toBe('connecting');
    await t.start(r);
    expect(t.state).toBe('open');
    await t.send('{"jsonrpc":"2.0","id":1,"method":"echo","params":["x"]}');
    expect(await r.next()).toBe('{"jsonrpc":"2.0","id":1,"result":["x"]}');
    await expect(t.start(r)).rejects.toThrow('already started');
    await Promise.all([t.close('done'), t.close()]);
    expect(t.state).toBe('closed');
    expect(states).toEqual(['open', 'closed']);
    expect(r.closes).toBe(1);
    expect(r.closeError).toBeUndefined();
    await expect(t.send('{}')).rejects.toBeInstanceOf(ConnectionClosedError);
  });

  it('queues sends made before the socket opens and sends them once, in order', async () => {
    const wss = await echoServer();
    const t = transport({ url: wsUrl(wss.port), maxQueue: false });
    const r = recorder();
    const started = t.start(r);
    const sends = [1, 2, 3].map((id) => t.send(`{"jsonrpc":"2.0","id":${id},"method":"echo"}`));
    await started;
    await Promise.all(sends);
    expect([await r.next(), await r.next(), await r.next()].map((m) => JSON.parse(m).id)).toEqual([
      1, 2, 3,
    ]);
  });

  it('sends handshake headers and subprotocols with ws', async () => {
    const { wss, url } = await rawServer({ handleProtocols: (set) => [...set][0] ?? false });
    const seen = new Promise<{ auth: string | undefined; protocol: string }>((resolve) =>
      wss.once('connection', (ws, req) =>
        resolve({ auth: req.headers.authorization, protocol: ws.protocol }),
      ),
    );
    const t = transport({ url, headers: { authorization: 'Bearer t' }, protocols: ['jsonrpc'] });
    await t.start(recorder());
    expect(await seen).toEqual({ auth: 'Bearer t', protocol: 'jsonrpc' });
  });

  it('decodes binary frames as UTF-8 and reports invalid ones', async () => {
    const { wss, url } = await rawServer();
    wss.on('connection', (ws) => {
      ws.send(Buffer.from('{"jsonrpc":"2.0","method":"ü"}'));
      ws.send(Buffer.from([0xff, 0xfe]));
      ws.send('{"jsonrpc":"2.0","method":"after"}');
    });
    const t = transport({ url });
    const r = recorder();
    await t.start(r);
    expect(await r.next()).toBe('{"jsonrpc":"2.0","method":"ü"}');
    expect(await r.next()).toBe('{"jsonrpc":"2.0","method":"after"}');
    expect(r.errors).toHaveLength(1);
    expect(r.errors[0]).toBeInstanceOf(TransportError);
    expect(r.errors[0]!.message).toContain('not valid UTF-8');
  });

  it("reads Node's ws through its message listener: no event object per message", async () => {
    const listened = vi.spyOn(WebSocket.prototype, 'addEventListener');
    const { wss, url } = await rawServer();
    wss.on('connection', (ws) => {
      ws.send('{"jsonrpc":"2.0","method":"text"}');
      ws.send(Buffer.from('{"jsonrpc":"2.0","method":"binary"}'));
    });
    const t = transport({ url });
    const r = recorder();
    await t.start(r);
    expect(await r.next()).toBe('{"jsonrpc":"2.0","method":"text"}');
    expect(await r.next()).toBe('{"jsonrpc":"2.0","method":"binary"}');
    // `onmessage` would wrap each message in a MessageEvent through addEventListener.
    expect(listened.mock.calls.filter(([type]) => type === 'message')).toEqual([]);
    listened.mockRestore();
  });

  it('reconnects with backoff when the server returns on the same port; queued sends go out once', async () => {
    const first = await echoServer(await restartablePort());
    const port = first.port;
    const reconnects: number[] = [];
    const t = transport({
      url: wsUrl(port),
      reconnect: { strategy: 'exponential', delay: 20, maxDelay: 80, jitter: 0 },
      onReconnect: () => reconnects.push(Date.now()),
    });
    const r = recorder();
    await t.start(r);
    await t.send('{"jsonrpc":"2.0","id":1,"method":"sleep","params":[5000]}');
    await waitFor(() => first.connections.size === 1);
    // Kill the server mid-call.
    await first.close({ timeout: 0 });
    await waitFor(() => t.state === 'reconnecting');
    expect(r.events[0]).toMatch(/^disconnect:WebSocket closed \(1001/);
    const queued = t.send('{"jsonrpc":"2.0","id":2,"method":"echo","params":["queued"]}');
    // Let a few attempts fail against the closed port.
    await new Promise((resolve) => setTimeout(resolve, 150));
    expect(t.state).toBe('reconnecting');
    const handler = createEchoHandler();
    const second = createWebSocketServer(handler, { port, host: '127.0.0.1' });
    cleanups.push(() => second.close({ timeout: 50 }));
    await second.ready;
    await withTimeout(queued, 3000, 'queued send');
    expect(await r.next()).toBe('{"jsonrpc":"2.0","id":2,"result":["queued"]}');
    expect(t.state).toBe('open');
    expect(r.events.slice(1)).toEqual(['reconnect']);
    expect(reconnects).toHaveLength(1);
    // Exactly once: nothing else arrives.
    await t.send('{"jsonrpc":"2.0","id":3,"method":"echo"}');
    expect(JSON.parse(await r.next()).id).toBe(3);
    expect(r.messages.filter((m) => m.includes('"queued"'))).toHaveLength(1);
  });

  it('fails fast while disconnected with maxQueue: false, and when the queue is full', async () => {
    const wss = await echoServer();
    const port = wss.port;
    const t = transport({
      url: wsUrl(port),
      maxQueue: false,
      reconnect: { strategy: 'fixed', delay: 1000 },
    });
    await t.start(recorder());
    await wss.close({ timeout: 0 });
    await waitFor(() => t.state === 'reconnecting');
    await expect(t.send('{}')).rejects.toBeInstanceOf(ConnectionClosedError);

    const wss2 = await echoServer();
    const t2 = transport({
      url: wsUrl(wss2.port),
      maxQueue: 2,
      reconnect: { strategy: 'fixed', delay: 1000 },
    });
    await t2.start(recorder());
    await wss2.close({ timeout: 0 });
    await waitFor(() => t2.state === 'reconnecting');
    const a = t2.send('{"a":1}');
    const b = t2.send('{"b":1}');
    await expect(t2.send('{"c":1}')).rejects.toThrow(/queue is full/);
    await t2.close();
    await expect(a).rejects.toBeInstanceOf(ConnectionClosedError);
    await expect(b).rejects.toBeInstanceOf(ConnectionClosedError);
  });

  it('closes with a transport error after maxAttempts; start rejects if it never opened', async () => {
    const { wss, url } = await rawServer();
    await new Promise<void>((resolve) => wss.close(() => resolve()));
    const states: WebSocketTransportState[] = [];
    const t = transport({
      url,
      reconnect: { strategy: 'fixed', delay: 5, maxAttempts: 3 },
      onStateChange: (s) => states.push(s),
    });
    const r = recorder();
    const queued = t.send('{}');
    await expect(t.start(r)).rejects.toThrow('Gave up reconnecting after 3 attempts');
    expect(r.closes).toBe(1);
    expect(r.closeError).toBeInstanceOf(TransportError);
    expect(t.state).toBe('closed');
    expect(states).toEqual(['closed']);
    await expect(queued).rejects.toBeInstanceOf(ConnectionClosedError);
  });

  it('with reconnect: false, a drop closes the transport', async () => {
    const wss = await echoServer();
    const t = transport({ url: wsUrl(wss.port), reconnect: false });
    const r = recorder();
    await t.start(r);
    await wss.close({ timeout: 0 });
    await withTimeout(t.closed, 3000, 'close');
    expect(r.events).toEqual(['close']);
    expect(r.closeError).toBeInstanceOf(ConnectionClosedError);
    expect(r.closeError!.message).toContain('1001');
  });

  it('drops and reconnects when the server never pongs', async () => {
    const { wss, url } = await rawServer({ autoPong: false });
    let connections = 0;
    wss.on('connection', () => connections++);
    const t = transport({
      url,
      heartbeat: { interval: 20, timeout: 30 },
      reconnect: { strategy: 'fixed', delay: 10, jitter: 0 },
    });
    const r = recorder();
    await t.start(r);
    await waitFor(() => r.events.includes('reconnect'), 3000, 'reconnect');
    expect(r.events[0]).toBe('disconnect:Heartbeat: no pong within 30 ms');
    expect(connections).toBeGreaterThanOrEqual(2);
  });

  it('keeps a socket whose server pongs', async () => {
    const wss = await echoServer();
    const t = transport({ url: wsUrl(wss.port), heartbeat: { interval: 10, timeout: 50 } });
    const r = recorder();
    await t.start(r);
    await new Promise((resolve) => setTimeout(resolve, 150));
    expect(r.events).toEqual([]);
    expect(t.state).toBe('open');
  });

  it('times out a handshake that never completes', async () => {
    const net = await import('node:net');
    const silent = net.createServer(() => {});
    silent.listen(0, '127.0.0.1');
    await once(silent, 'listening');
    const sockets = new Set<import('node:net').Socket>();
    silent.on('connection', (s) => sockets.add(s));
    cleanups.push(() => {
      for (const s of sockets) s.destroy();
      return new Promise((resolve) => silent.close(resolve));
    });
    const t = transport({
      url: wsUrl((silent.address() as AddressInfo).port),
      connectTimeout: 30,
      reconnect: { maxAttempts: 0 },
    });
    await expect(t.start(recorder())).rejects.toThrow(/Cannot connect to .* within 30 ms|Gave up/);
  });

  it('uses a WebSocket constructor override', async () => {
    const wss = await echoServer();
    let made = 0;
    class Counting extends WebSocket {
      constructor(url: string, protocols?: string | string[]) {
        super(url, protocols);
        made++;
      }
    }
    const t = transport({ url: wsUrl(wss.port), WebSocket: Counting as never });
    const r = recorder();
    await t.start(r);
    await t.send('{"jsonrpc":"2.0","id":1,"method":"echo"}');
    expect(await r.next()).toBe('{"jsonrpc":"2.0","id":1,"result":null}');
    expect(made).toBe(1);
  });

  it('sends on sockets without bufferedAmount (workerd) without waiting forever', async () => {
    const wss = await echoServer();
    class Unmeasured extends WebSocket {}
    Object.defineProperty(Unmeasured.prototype, 'bufferedAmount', { get: () => undefined });
    const t = transport({ url: wsUrl(wss.port), WebSocket: Unmeasured as never });
    const r = recorder();
    await t.start(r);
    await withTimeout(t.send('{"jsonrpc":"2.0","id":1,"method":"echo"}'), 1_000, 'send');
    expect(await r.next()).toBe('{"jsonrpc":"2.0","id":1,"result":null}');
  });

  it('sends what a turn sent before the close frame of a close() in the same turn', async () => {
    const { wss, url } = await rawServer();
    const received: string[] = [];
    const closed = new Promise<number>((resolve) =>
      wss.once('connection', (ws) => {
        ws.on('message', (data) => received.push(String(data)));
        ws.once('close', resolve);
      }),
    );
    const t = transport({ url, reconnect: false, heartbeat: false });
    await t.start(recorder());
    const sent = [t.send('{"a":1}'), t.send('{"a":2}')];
    const closing = t.close('done');
    await Promise.all(sent);
    expect(await withTimeout(closed, 3000, 'close at the server')).toBe(1000);
    await closing;
    expect(received).toEqual(['{"a":1}', '{"a":2}']);
  });

  it('reports a socket that throws as the turn ends, and keeps the process up', async () => {
    const wss = await echoServer();
    const t = transport({ url: wsUrl(wss.port), reconnect: false, heartbeat: false });
    const r = recorder();
    await t.start(r);
    // The client's socket is a `ws` WebSocket: its first send, as the turn ends, throws.
    const send = WebSocket.prototype.send;
    const spy = vi.spyOn(WebSocket.prototype, 'send').mockImplementationOnce(() => {
      throw new Error('refused');
    });
    try {
      await t.send('{"jsonrpc":"2.0","id":1,"method":"echo"}');
      await waitFor(() => r.errors.length === 1);
    } finally {
      spy.mockRestore();
    }
    expect(WebSocket.prototype.send).toBe(send);
    expect(r.errors[0]).toBeInstanceOf(TransportError);
    expect(r.errors[0]!.message).toBe('Send failed');
    expect((r.errors[0]!.cause as Error).message).toBe('refused');
    // The socket still works.
    await t.send('{"jsonrpc":"2.0","id":2,"method":"echo"}');
    expect(await r.next()).toBe('{"jsonrpc":"2.0","id":2,"result":null}');
  });

  it('refuses a malformed URL by closing', async () => {
    const t = transport({ url: 'not a url' });
    const r = recorder();
    await expect(t.start(r)).rejects.toBeInstanceOf(TransportError);
    expect(r.closes).toBe(1);
  });

  it('close() during reconnect stops trying', async () => {
    const wss = await echoServer();
    const port = wss.port;
    const t = transport({ url: wsUrl(port), reconnect: { strategy: 'fixed', delay: 10 } });
    const r = recorder();
    await t.start(r);
    await wss.close({ timeout: 0 });
    await waitFor(() => t.state === 'reconnecting');
    await t.close();
    expect(t.state).toBe('closed');
    expect(r.closes).toBe(1);
    expect(r.closeError).toBeUndefined();
  });
});

describe('close() against a frozen server', () => {
  it('drops the socket after closeTimeout when the close frame is never answered', async () => {
    const { createHash } = await import('node:crypto');
    const { createServer } = await import('node:net');
    // A server that completes the opening handshake, then reads everything and answers nothing.
    let serverSide: import('node:net').Socket | undefined;
    const net = createServer((socket) => {
      serverSide = socket;
      let head = '';
      socket.on('data', (chunk) => {
        if (head.includes('\r\n\r\n')) return;
        head += chunk.toString('latin1');
        const key = /sec-websocket-key:\s*(\S+)/i.exec(head)?.[1];
        if (!head.includes('\r\n\r\n') || key === undefined) return;
        const accept = createHash('sha1')
          .update(`${key}258EAFA5-E914-47DA-95CA-C5AB0DC85B11`)
          .digest('base64');
        socket.write(
          `HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Accept: ${accept}\r\n\r\n`,
        );
      });
    });
    await new Promise<void>((resolve) => net.listen(0, '127.0.0.1', resolve));
    cleanups.push(() => new Promise((resolve) => net.close(resolve)));
    cleanups.push(() => serverSide?.destroy());
    const port = (net.address() as AddressInfo).port;
    const transport = createWebSocketTransport({
      url: wsUrl(port),
      reconnect: false,
      heartbeat: false,
      closeTimeout: 50,
    });
    const rec = recorder();
    await transport.start(rec);
    const serverClosed = new Promise<void>((resolve) => serverSide!.once('close', () => resolve()));
    await transport.close();
    expect(rec.closes).toBe(1);
    expect(rec.closeError).toBeUndefined();
    // The socket was dropped by the client, not left waiting for the server's close frame.
    await withTimeout(serverClosed, 2000, 'the server side to see the socket dropped');
    expect(transport.state).toBe('closed');
  });
});
