import { once } from 'node:events';
import type { AddressInfo, Socket } from 'node:net';
import { ConnectionClosedError, type TransportHandler } from '@jsonrpc-kit/core';
import { DEFAULT_HIGH_WATER_MARK } from '@jsonrpc-kit/core/engine';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { type WebSocket, WebSocketServer } from 'ws';
import { closeCode, openRaw, waitFor, wsUrl } from '../test/helpers.js';
import { createSocketTransport } from './socket-transport.js';

const cleanups: (() => unknown)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

async function pair() {
  const wss = new WebSocketServer({ port: 0, host: '127.0.0.1' });
  await once(wss, 'listening');
  cleanups.push(() => new Promise((r) => wss.close(r)));
  const accepted = new Promise<WebSocket>((resolve) => wss.once('connection', resolve));
  const client = await openRaw(wsUrl((wss.address() as AddressInfo).port));
  cleanups.push(() => client.ws.terminate());
  return { client, socket: await accepted };
}

function handler() {
  const h = {
    messages: [] as string[],
    errors: [] as Error[],
    closes: [] as (Error | undefined)[],
    onMessage(text: string) {
      h.messages.push(text);
    },
    onClose(error?: Error) {
      h.closes.push(error);
    },
    onError(error: Error) {
      h.errors.push(error);
    },
  } satisfies TransportHandler & Record<string, unknown>;
  return h;
}

describe('createSocketTransport', () => {
  it('buffers what arrives before start, in order, including a refused frame', async () => {
    const { client, socket } = await pair();
    const transport = createSocketTransport(socket, { answerInvalidFrames: false });
    client.ws.send('one');
    client.ws.send(Buffer.from([0xc3, 0x28]));
    client.ws.send('two');
    await new Promise((r) => setTimeout(r, 30));
    const h = handler();
    await transport.start(h);
    expect(h.messages).toEqual(['one', 'two']);
    expect(h.errors).toHaveLength(1);
    expect(client.received).toEqual([]);
    await expect(transport.start(h)).rejects.toThrow('already started');
    expect(DEFAULT_HIGH_WATER_MARK).toBe(1024 * 1024);
  });

  it('calls its handler members as methods, so a handler may keep them on its prototype', async () => {
    class Owner implements TransportHandler {
      readonly seen: string[] = [];
      onMessage(text: string): void {
        this.seen.push(`message ${text}`);
      }
      onClose(): void {
        this.seen.push('close');
      }
      onError(error: Error): void {
        this.seen.push(`error ${error.message}`);
      }
    }
    const { client, socket } = await pair();
    const transport = createSocketTransport(socket, { answerInvalidFrames: false });
    expect(transport.callsHandlerMethods).toBe(true);
    const owner = new Owner();
    await transport.start(owner);
    client.ws.send('one');
    client.ws.send(Buffer.from([0xc3, 0x28]));
    await waitFor(() => owner.seen.length === 2);
    client.ws.close();
    await transport.closed;
    expect(owner.seen).toEqual(['message one', 'error Binary frame is not valid UTF-8', 'close']);
  });

  it('closes once with 1000 and a cut reason, then rejects sends', async () => {
    const { client, socket } = await pair();
    const transport = createSocketTransport(socket);
    const h = handler();
    await transport.start(h);
    const code = closeCode(client.ws);
    const reason = new Promise<string>((resolve) =>
      client.ws.once('close', (_c, r) => resolve(r.toString())),
    );
    await Promise.all([transport.close('x'.repeat(500)), transport.close()]);
    expect(await code).toBe(1000);
    expect((await reason).length).toBe(123);
    expect(h.closes).toEqual([undefined]);
    expect(transport.signal.aborted).toBe(true);
    await expect(transport.send('late')).rejects.toBeInstanceOf(ConnectionClosedError);
  });

  it('reports an abnormal drop as a ConnectionClosedError, also to a late start', async () => {
    const { client, socket } = await pair();
    const transport = createSocketTransport(socket);
    client.ws.terminate();
    await transport.closed;
    const h = handler();
    await transport.start(h);
    expect(h.closes).toHaveLength(1);
    expect(h.closes[0]).toBeInstanceOf(ConnectionClosedError);
    expect(h.closes[0]!.message).toContain('1006');
  });

  it('keeps serving when the owner throws from onMessage', async () => {
    const { client, socket } = await pair();
    const transport = createSocketTransport(socket);
    const h = handler();
    let calls = 0;
    await transport.start({
      ...h,
      onMessage(text) {
        calls++;
        if (text === 'boom') throw new Error('owner bug');
        void transport.send(`echo:${text}`);
      },
    });
    client.ws.send('boom');
    client.ws.send('ok');
    expect(await client.next()).toBe('echo:ok');
    await waitFor(() => calls === 2);
    expect(h.errors.map((e) => e.message)).toEqual(['owner bug']);
  });

  it("writes each socket's turn in one write, however many frames it has", async () => {
    const sockets = [await pair(), await pair(), await pair()];
    const transports = sockets.map(({ socket }) => createSocketTransport(socket));
    for (const transport of transports) await transport.start(handler());
    const raws = sockets.map(({ socket }) => (socket as unknown as { _socket: Socket })._socket);
    const writes = raws.map((raw) => {
      const counter = { writev: 0, corks: 0 };
      const writev = raw._writev!.bind(raw);
      raw._writev = (chunks, callback) => {
        counter.writev++;
        writev(chunks, callback);
      };
      const cork = raw.cork.bind(raw);
      raw.cork = () => {
        counter.corks++;
        cork();
      };
      return counter;
    });
    const ticks = vi.spyOn(process, 'nextTick');
    try {
      // A broadcast: one frame to each socket in one turn. The transport corks each socket once
      // (ws corks each frame's header and payload too), and one tick ends the turn for all.
      for (const transport of transports) await transport.send('{"n":1}');
      await new Promise((r) => setImmediate(r));
      expect(writes.map((w) => w.writev)).toEqual([1, 1, 1]);
      expect(writes.map((w) => w.corks)).toEqual([2, 2, 2]);
      expect(ticks).toHaveBeenCalledTimes(1);
      // Three frames to one socket in one turn: one write.
      void transports[0]!.send('{"n":2}');
      void transports[0]!.send('{"n":3}');
      void transports[0]!.send('{"n":4}');
      await new Promise((r) => setImmediate(r));
      expect(writes[0]!.writev).toBe(2);
    } finally {
      ticks.mockRestore();
    }
    await waitFor(() => sockets[0]!.client.received.length === 4);
    expect(sockets[0]!.client.received).toEqual(['{"n":1}', '{"n":2}', '{"n":3}', '{"n":4}']);
    expect(sockets.map(({ client }) => client.received[0])).toEqual([
      '{"n":1}',
      '{"n":1}',
      '{"n":1}',
    ]);
  });
});
