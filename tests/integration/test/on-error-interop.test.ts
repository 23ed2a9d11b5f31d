/**
 * `onError` with real peers: routine traffic (vscode-jsonrpc's `$/setTrace`, an answer to a
 * WebSocket that left right after its request) is reported with a kind and a debug level, so the
 * default level keeps it out of the logs.
 */
import { PassThrough } from 'node:stream';
import { ConnectionClosedError } from '@jsonrpc-kit/core';
import { createServer, type ErrorInfo } from '@jsonrpc-kit/server';
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
  async function traceThenAdd(level?: 'debug'): Promise<Array<[unknown, ErrorInfo]>> {
    const events: Array<[unknown, ErrorInfo]> = [];
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
    const events: Array<[unknown, ErrorInfo]> = [];
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
