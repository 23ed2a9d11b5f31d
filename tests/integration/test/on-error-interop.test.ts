/**
 * `onError` with real peers: routine traffic (vscode-jsonrpc's `$/setTrace`, an answer to a
 * WebSocket that left right after its request) is reported with a kind and a debug level, so the
 * default level keeps it out of the logs.
 */
import { connect } from 'node:net';
import { PassThrough } from 'node:stream';
import { ConnectionClosedError } from '@jsonrpc-kit/core';
import { createServer, type ServerErrorInfo } from '@jsonrpc-kit/server';
import { createFetchHandler, listen } from '@jsonrpc-kit/transport-http';
import { createStreamTransport } from '@jsonrpc-kit/transport-stdio';
import { createWebSocketServer } from '@jsonrpc-kit/transport-ws';
import { afterEach, describe, expect, it } from 'vitest';
import {
  createMessageConnection,
  StreamMessageReader,
  StreamMessageWriter,
  Trace,
  TraceFormat,
} from 'vscode-jsonrpc/node';
import WebSocket from 'ws';

const cleanups: (() => unknown)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

async function waitFor(check: () => boolean, ms = 3000): Promise<void> {
  const end = Date.now() + ms;
  while (!check()) {
    if (Date.now() > end) throw new Error('timed out');
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
}

describe('a vscode-jsonrpc client that sends $/setTrace', () => {
  async function traceThenAdd(level?: 'debug'): Promise<Array<[unknown, ServerErrorInfo]>> {
    const events: Array<[unknown, ServerErrorInfo]> = [];
    const server = createServer({
      onError: (error, info) => events.push([error, info]),
      ...(level === undefined ? {} : { onErrorLevel: level }),
    });
    server.method('add', ([a, b]: [number, number]) => a + b);
    const toServer = new PassThrough();
    const toClient = new PassThrough();
    const transport = createStreamTransport(toServer, toClient, { framing: 'content-length' });
    server.connect(transport);
    cleanups.push(() => transport.close());
    const connection = createMessageConnection(
      new StreamMessageReader(toClient),
      new StreamMessageWriter(toServer),
    );
    connection.listen();
    cleanups.push(() => connection.dispose());
    await connection.trace(
      Trace.Verbose,
      { log: () => {} },
      {
        sendNotification: true,
        traceFormat: TraceFormat.Text,
      },
    );
    // Answered after the notification was handled: messages are handled in order.
    expect(await connection.sendRequest('add', 2, 3)).toBe(5);
    return events;
  }

  it('is not reported at the default level', async () => {
    expect(await traceThenAdd()).toEqual([]);
  });

  it('is reported as an unknown notification at debug level', async () => {
    const events = await traceThenAdd('debug');
    expect(events.map(([, info]) => info)).toEqual([
      { kind: 'unknown-notification', level: 'debug', method: '$/setTrace', notification: true },
    ]);
  });
});

describe('a WebSocket client that leaves right after its request', () => {
  it('reports the failed answer as send-failed at debug level, with method and id', async () => {
    const events: Array<[unknown, ServerErrorInfo]> = [];
    const server = createServer({
      onError: (error, info) => events.push([error, info]),
      onErrorLevel: 'debug',
    });
    let release!: () => void;
    const released = new Promise<void>((resolve) => {
      release = resolve;
    });
    let started = false;
    server.method('slow', async () => {
      started = true;
      await released;
      return 'late';
    });
    const wss = createWebSocketServer(server, { port: 0, host: '127.0.0.1' });
    cleanups.push(() => wss.close({ timeout: 50 }));
    await wss.ready;
    const socket = new WebSocket(`ws://127.0.0.1:${wss.address()!.port}/`);
    cleanups.push(() => socket.terminate());
    await new Promise((resolve, reject) => {
      socket.once('open', resolve);
      socket.once('error', reject);
    });
    socket.send('{"jsonrpc":"2.0","id":1,"method":"slow"}');
    await waitFor(() => started);
    // Leave: the close frame goes out, and this side stops reading, so the server's socket stays
    // closing (it got the close frame, the TCP connection is not gone yet).
    socket.close();
    (socket as unknown as { _socket: { pause(): void } })._socket.pause();
    await waitFor(() => server.connections.size === 1);
    await new Promise((resolve) => setTimeout(resolve, 50));
    release();
    await waitFor(() => events.length > 0);
    expect(events).toHaveLength(1);
    expect(events[0]![0]).toBeInstanceOf(ConnectionClosedError);
    expect(events[0]![1]).toEqual({
      kind: 'send-failed',
      level: 'debug',
      method: 'slow',
      id: 1,
      notification: false,
    });
  });
});

describe('a caller that gives up before its answer', () => {
  /** A server whose `slow` handler finishes normally once the caller has gone. */
  function slowServer(level?: 'debug') {
    const events: Array<[unknown, ServerErrorInfo]> = [];
    const server = createServer({
      onError: (error, info) => events.push([error, info]),
      ...(level === undefined ? {} : { onErrorLevel: level }),
    });
    let started = false;
    let finished = false;
    server.method('slow', async (_params: unknown, ctx) => {
      started = true;
      await new Promise<void>((resolve) => ctx.signal.addEventListener('abort', () => resolve()));
      await new Promise((resolve) => setTimeout(resolve, 20));
      finished = true;
      return 'late';
    });
    return { server, events, started: () => started, finished: () => finished };
  }

  const GONE = { kind: 'caller-gone', level: 'debug', method: 'slow', id: 1, notification: false };

  async function overHttp(level?: 'debug') {
    const s = slowServer(level);
    const http = await listen(s.server, { host: '127.0.0.1', port: 0 });
    cleanups.push(() => http.close());
    const socket = connect(http.port, '127.0.0.1');
    cleanups.push(() => socket.destroy());
    const body = '{"jsonrpc":"2.0","id":1,"method":"slow"}';
    socket.write(
      `POST / HTTP/1.1\r\nhost: 127.0.0.1\r\ncontent-type: application/json\r\ncontent-length: ${body.length}\r\n\r\n${body}`,
    );
    await waitFor(s.started);
    socket.destroy();
    await waitFor(s.finished);
    await new Promise((resolve) => setTimeout(resolve, 20));
    return s.events;
  }

  async function overFetch(level?: 'debug') {
    const s = slowServer(level);
    const handler = createFetchHandler(s.server);
    const controller = new AbortController();
    const answer = handler(
      new Request('http://127.0.0.1/', {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: '{"jsonrpc":"2.0","id":1,"method":"slow"}',
        signal: controller.signal,
      }),
    );
    await waitFor(s.started);
    controller.abort();
    await answer.catch(() => undefined);
    await waitFor(s.finished);
    await new Promise((resolve) => setTimeout(resolve, 20));
    return s.events;
  }

  async function overWebSocket(level?: 'debug') {
    const s = slowServer(level);
    const wss = createWebSocketServer(s.server, { port: 0, host: '127.0.0.1' });
    cleanups.push(() => wss.close({ timeout: 50 }));
    await wss.ready;
    const socket = new WebSocket(`ws://127.0.0.1:${wss.address()!.port}/`);
    cleanups.push(() => socket.terminate());
    await new Promise((resolve, reject) => {
      socket.once('open', resolve);
      socket.once('error', reject);
    });
    socket.send('{"jsonrpc":"2.0","id":1,"method":"slow"}');
    await waitFor(s.started);
    socket.terminate();
    await waitFor(s.finished);
    await new Promise((resolve) => setTimeout(resolve, 20));
    return s.events;
  }

  for (const [name, run] of [
    ['node:http', overHttp],
    ['a fetch handler', overFetch],
    ['WebSocket', overWebSocket],
  ] as const) {
    it(`${name}: is not a failing handler; reported only as caller-gone at debug level`, async () => {
      expect(await run()).toEqual([]);
      const events = await run('debug');
      expect(events.map(([, info]) => info)).toEqual([GONE]);
      expect(events[0]![0]).toBeInstanceOf(ConnectionClosedError);
    });
  }
});
