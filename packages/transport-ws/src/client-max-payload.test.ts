// The WebSocket client against a hostile server: a message larger than the client takes.
import { once } from 'node:events';
import type { AddressInfo } from 'node:net';
import { createClient } from '@jsonrpc-kit/client';
import {
  ConnectionClosedError,
  DEFAULT_CLIENT_MAX_MESSAGE_BYTES,
  TransportError,
} from '@jsonrpc-kit/core';
import { afterEach, describe, expect, it } from 'vitest';
import { type WebSocket, WebSocketServer } from 'ws';
import { withTimeout, wsUrl } from '../test/helpers.js';
import { createWebSocketTransport } from './client-transport.js';

const cleanups: (() => unknown)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

/**
 * A raw `ws` server that answers every call with a result of `size` bytes, and records the close
 * code each connection ended with.
 */
async function bigAnswerServer(size: number) {
  const wss = new WebSocketServer({ port: 0, host: '127.0.0.1', maxPayload: 1024 * 1024 });
  await once(wss, 'listening');
  const codes: number[] = [];
  const filler = 'x'.repeat(size);
  wss.on('connection', (socket: WebSocket) => {
    socket.on('close', (code) => codes.push(code));
    socket.on('message', (data) => {
      const { id } = JSON.parse(String(data)) as { id: number };
      socket.send(`{"jsonrpc":"2.0","id":${id},"result":"${filler}"}`);
    });
  });
  cleanups.push(
    () =>
      new Promise<void>((resolve) => {
        for (const client of wss.clients) client.terminate();
        wss.close(() => resolve());
      }),
  );
  return { url: wsUrl((wss.address() as AddressInfo).port), codes };
}

describe('createWebSocketTransport: maxMessageBytes', () => {
  it('defaults to 16 MiB', () => {
    expect(DEFAULT_CLIENT_MAX_MESSAGE_BYTES).toBe(16 * 1024 * 1024);
  });

  it('closes with 1009 on a message over maxMessageBytes; the call fails naming the limit', async () => {
    const { url, codes } = await bigAnswerServer(2 * 1024 * 1024);
    const transport = createWebSocketTransport({
      url,
      maxMessageBytes: 1024 * 1024,
      reconnect: false,
    });
    const client = createClient(transport, { callTimeout: 5000 });
    cleanups.push(() => client.close());
    const outcome = await withTimeout(
      client.request('big').then(
        () => 'answered',
        (error: unknown) => error,
      ),
      4000,
      'the call to settle',
    );
    expect(outcome).toBeInstanceOf(ConnectionClosedError);
    const cause = (outcome as Error).cause;
    expect(cause).toBeInstanceOf(TransportError);
    expect((cause as Error).message).toMatch(
      /over maxMessageBytes \(1048576 bytes\): closed with 1009/,
    );
    await withTimeout(transport.closed, 2000, 'the transport to close');
    expect(codes).toEqual([1009]);
  });

  it('takes a message up to maxMessageBytes', async () => {
    const { url } = await bigAnswerServer(512 * 1024);
    const transport = createWebSocketTransport({
      url,
      maxMessageBytes: 1024 * 1024,
      reconnect: false,
    });
    const client = createClient(transport, { callTimeout: 5000 });
    cleanups.push(() => client.close());
    expect(((await client.request('big')) as string).length).toBe(512 * 1024);
  });

  it('reconnects after the drop when reconnecting, and fails the call in flight', async () => {
    const { url, codes } = await bigAnswerServer(2 * 1024 * 1024);
    const transport = createWebSocketTransport({
      url,
      maxMessageBytes: 1024 * 1024,
      reconnect: { strategy: 'fixed', delay: 20 },
    });
    const client = createClient(transport, { callTimeout: 5000 });
    cleanups.push(() => client.close());
    const outcome = await withTimeout(
      client.request('big').then(
        () => 'answered',
        (error: unknown) => error,
      ),
      4000,
      'the call to settle',
    );
    expect(((outcome as Error).cause as Error).message).toMatch(/over maxMessageBytes/);
    expect(codes).toEqual([1009]);
  });

  it('refuses a maxMessageBytes that is not positive', () => {
    expect(() =>
      createWebSocketTransport({ url: 'ws://127.0.0.1:1/', maxMessageBytes: 0 }),
    ).toThrow(RangeError);
  });
});
