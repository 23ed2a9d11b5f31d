import { once } from 'node:events';
import type { AddressInfo, Socket } from 'node:net';
import type { TransportHandler } from '@jsonrpc-kit/core';
import { SENT } from '@jsonrpc-kit/core/engine';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { WebSocket, WebSocketServer } from 'ws';
import { waitFor, withTimeout, wsUrl } from '../test/helpers.js';
import { createWebSocketTransport } from './client-transport.js';
import { RESOLVED } from './send-flow.js';
import { createSocketTransport } from './socket-transport.js';

const cleanups: (() => unknown)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

function collector(into: string[]): TransportHandler {
  return { onMessage: (text) => void into.push(text), onClose() {} };
}

/** Counts the writes that reach a network socket (one per `_write` or `_writev`). */
function countWrites(raw: Socket): { writes: number } {
  const counter = { writes: 0 };
  const write = raw._write.bind(raw);
  raw._write = (chunk, encoding, callback) => {
    counter.writes++;
    write(chunk, encoding, callback);
  };
  const writev = raw._writev!.bind(raw);
  raw._writev = (chunks, callback) => {
    counter.writes++;
    writev(chunks, callback);
  };
  return counter;
}

/** A client transport and a served socket's transport, talking to each other. */
async function ends(highWaterMark?: number) {
  const wss = new WebSocketServer({ port: 0, host: '127.0.0.1' });
  await once(wss, 'listening');
  cleanups.push(() => new Promise((r) => wss.close(r)));
  const accepted = new Promise<WebSocket>((resolve) => wss.once('connection', resolve));
  const made: WebSocket[] = [];
  class Recorded extends WebSocket {
    constructor(url: string, protocols?: string | string[], options?: object) {
      super(url, protocols, options);
      made.push(this);
    }
  }
  const client = createWebSocketTransport({
    url: wsUrl((wss.address() as AddressInfo).port),
    reconnect: false,
    heartbeat: false,
    WebSocket: Recorded as never,
    highWaterMark,
  });
  cleanups.push(() => client.close());
  const atClient: string[] = [];
  await client.start(collector(atClient));
  const socket = await accepted;
  const served = createSocketTransport(socket, { highWaterMark });
  cleanups.push(() => served.close());
  const atServer: string[] = [];
  await served.start(collector(atServer));
  const raw = (ws: WebSocket) => (ws as unknown as { _socket: Socket })._socket;
  return { client, served, atClient, atServer, clientRaw: raw(made[0]!), servedRaw: raw(socket) };
}

describe('the send flow every WebSocket shares', () => {
  it('coalesces a turn by one rule on both ends, ended by one tick for both', async () => {
    const { client, served, atClient, atServer, clientRaw, servedRaw } = await ends();
    const clientWrites = countWrites(clientRaw);
    const servedWrites = countWrites(servedRaw);
    const ticks = vi.spyOn(process, 'nextTick');
    let sent: Promise<void>[];
    try {
      sent = [1, 2, 3].flatMap((n) => [client.send(`{"c":${n}}`), served.send(`{"s":${n}}`)]);
      // One end of turn for every socket written in it, whichever end it is.
      expect(ticks).toHaveBeenCalledTimes(1);
    } finally {
      ticks.mockRestore();
    }
    // Under the mark, both ends hand back the one shared resolved promise.
    for (const promise of sent) expect(promise).toBe(RESOLVED);
    // Core's SENT: the session then adds no failure watch to a send that is done.
    expect(RESOLVED).toBe(SENT);
    await waitFor(() => atServer.length === 3 && atClient.length === 3);
    expect(atServer).toEqual(['{"c":1}', '{"c":2}', '{"c":3}']);
    expect(atClient).toEqual(['{"s":1}', '{"s":2}', '{"s":3}']);
    // The turn's three frames left together: one write on each end.
    expect(clientWrites.writes).toBe(1);
    expect(servedWrites.writes).toBe(1);
  });

  it('makes both ends wait alike once over their mark: one wait per socket, shared by its sends', async () => {
    const { client, served, atClient, atServer } = await ends(1024);
    const big = `"${'x'.repeat(4 * 1024 * 1024)}"`;
    const fromClient = [client.send(big), client.send(big)];
    const fromServer = [served.send(big), served.send(big)];
    for (const [first, second] of [fromClient, fromServer] as const) {
      expect(first).not.toBe(RESOLVED);
      expect(second).toBe(first);
    }
    await withTimeout(Promise.all([...fromClient, ...fromServer]), 10_000, 'drain');
    await waitFor(() => atServer.length === 2 && atClient.length === 2, 10_000);
    // Drained: both ends are back to the shared resolved promise.
    expect(client.send('1')).toBe(RESOLVED);
    expect(served.send('2')).toBe(RESOLVED);
  });
});
