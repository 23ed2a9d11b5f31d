/**
 * Subscriptions end to end: the kit's client and server over stdio (both framings) and over a
 * real WebSocket server that restarts under a live subscription.
 */

import { Socket as NetSocket } from 'node:net';
import { createClient } from '@jsonrpc-kit/client';
import { ConnectionClosedError, ethereumSubscriptions } from '@jsonrpc-kit/core';
import { createServer, createSubscriptions } from '@jsonrpc-kit/server';
import { ProcessExitError, spawnTransport } from '@jsonrpc-kit/transport-stdio';
import {
  createWebSocketServer,
  createWebSocketTransport,
  type JsonRpcWebSocketServer,
} from '@jsonrpc-kit/transport-ws';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { WebSocket } from 'ws';
import { restartablePort } from '../../support/restart-port.js';
import { stdioFixture } from './stdio-fixtures/fixture.js';

const cleanups: (() => unknown)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

async function until(condition: () => boolean, timeout = 5_000): Promise<void> {
  const deadline = Date.now() + timeout;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error('timed out');
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
}

/** Fails with `what` instead of hanging when `promise` takes longer than `timeout`. */
async function within<T>(
  what: string | (() => string),
  promise: Promise<T>,
  timeout = 5_000,
): Promise<T> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(
      () =>
        reject(
          new Error(
            `timed out after ${timeout} ms waiting for ${typeof what === 'string' ? what : what()}`,
          ),
        ),
      timeout,
    );
  });
  try {
    return await Promise.race([promise, late]);
  } finally {
    clearTimeout(timer);
  }
}

describe('subscriptions over stdio', () => {
  for (const framing of ['content-length', 'newline'] as const) {
    it(`${framing}: an iterable runs to its end, an emitter stops on unsubscribe`, async () => {
      const transport = spawnTransport(
        process.execPath,
        [stdioFixture('subscriptions-server.mjs'), framing],
        { framing },
      );
      cleanups.push(async () => {
        transport.process.kill('SIGKILL');
        await transport.exit;
      });
      const client = createClient(transport);
      cleanups.push(() => client.close());
      const counted: number[] = [];
      await within(
        () => `the iterable subscription 'count' to end (items so far: [${counted}])`,
        (async () => {
          for await (const n of client.subscribe<number>('count', { to: 3 })) counted.push(n);
        })(),
      );
      expect(counted).toEqual([1, 2, 3]);

      const ticks: number[] = [];
      const sub = client.subscribe<number>('ticks', undefined, { onItem: (n) => ticks.push(n) });
      await within(
        'three ticks',
        until(() => ticks.length >= 3),
      );
      await within('the unsubscribe answer', sub.unsubscribe());
      expect(await within("the answer to 'live'", client.request('live'))).toBe(0);
      expect(ticks.slice(0, 3)).toEqual([1, 2, 3]);
    });
  }
});

describe('subscriptions over stdio, the client reading late', () => {
  it('an iterable that ran to its end before the client read anything still ends', async () => {
    const transport = spawnTransport(
      process.execPath,
      [stdioFixture('subscriptions-server.mjs'), 'newline'],
      { framing: 'newline' },
    );
    cleanups.push(async () => {
      transport.process.kill('SIGKILL');
      await transport.exit;
    });
    const client = createClient(transport);
    cleanups.push(() => client.close());
    expect(await within("the answer to 'live'", client.request('live'))).toBe(0);
    const sub = client.subscribe<number>('count', { to: 3 });
    // Block this process until the server has answered, sent the items and ended: all of it is
    // then read in one chunk, the end before the answer has been handled.
    await new Promise((resolve) => setImmediate(resolve));
    const until = Date.now() + 300;
    while (Date.now() < until) {
      // busy: nothing is read meanwhile
    }
    const counted: number[] = [];
    await within(
      () => `the iterable subscription 'count' to end (items so far: [${counted}])`,
      (async () => {
        for await (const n of sub) counted.push(n);
      })(),
    );
    expect(counted).toEqual([1, 2, 3]);
  });
});

describe('subscriptions over a respawned stdio child', () => {
  it('SIGKILL under a live subscription: the call in flight fails, a new child runs it again', async () => {
    const respawned: number[] = [];
    const transport = spawnTransport(
      process.execPath,
      [stdioFixture('subscriptions-server.mjs'), 'newline'],
      {
        framing: 'newline',
        respawn: { delay: 20, maxAttempts: 3 },
        onRespawn: (child) => respawned.push(child.pid ?? -1),
      },
    );
    cleanups.push(async () => {
      transport.process.kill('SIGKILL');
      await within('the last child to exit', transport.close());
    });
    const client = createClient(transport);
    cleanups.push(() => client.close());
    const firstPid = await within("the answer to 'pid'", client.request<number>('pid'));
    const items: number[] = [];
    const ids: string[] = [];
    const sub = client.subscribe<number>('ticks', undefined, {
      onItem: (n) => items.push(n),
      onResubscribed: (id) => ids.push(id),
    });
    const firstId = await within('the subscribe answer', sub.ready);
    await within(
      'three ticks',
      until(() => items.length >= 3),
    );
    const inFlight = client.request('hang').then(
      () => undefined,
      (error: unknown) => error,
    );
    // Answered after 'hang' arrived: the call is in the child's hands.
    expect(await within("the answer to 'hangs'", client.request('hangs'))).toBe(1);

    transport.process.kill('SIGKILL');
    const error = await within('the call in flight to fail', inFlight);
    expect(error).toBeInstanceOf(ConnectionClosedError);
    expect(error).toMatchObject({ code: 'CONNECTION_CLOSED' });
    expect((error as Error).message).toMatch(/^Connection lost/);
    expect((error as Error).cause).toBeInstanceOf(ProcessExitError);
    expect((error as Error).cause).toMatchObject({ signal: 'SIGKILL' });

    await within(
      () => `the subscription to be made again (items so far: [${items}])`,
      until(() => ids.length === 1),
    );
    expect(ids[0]).not.toBe(firstId);
    expect(sub.id).toBe(ids[0]);
    // The new child counts from 1 again: the items restart once, and none comes twice in a row.
    await within(
      () => `three ticks of the new child (items so far: [${items}])`,
      until(() => {
        const restart = items.lastIndexOf(1);
        return restart > 0 && items.length >= restart + 3;
      }),
    );
    const restart = items.lastIndexOf(1);
    expect(items.slice(restart, restart + 3)).toEqual([1, 2, 3]);
    for (const run of [items.slice(0, restart), items.slice(restart)]) {
      expect(run).toEqual(run.map((_, i) => i + 1));
    }

    const secondPid = await within("the new child's 'pid'", client.request<number>('pid'));
    expect(secondPid).not.toBe(firstPid);
    expect(respawned).toEqual([secondPid]);
    // The call in flight at the crash was not sent again.
    expect(await within("the new child's 'hangs'", client.request('hangs'))).toBe(0);
    expect(await within("the new child's 'live'", client.request('live'))).toBe(1);
    await within('the unsubscribe answer', sub.unsubscribe());
    expect(await within("'live' after unsubscribe", client.request('live'))).toBe(0);
  });
});

describe('subscriptions over WebSocket', () => {
  async function start(port: number, generation: number): Promise<JsonRpcWebSocketServer> {
    const server = createServer();
    const subscriptions = createSubscriptions(server);
    subscriptions.subscription('ticks', (_params: { from: string }, ctx) => {
      let n = 0;
      const timer = setInterval(() => ctx.emit(`${generation}:${++n}`), 5);
      return () => clearInterval(timer);
    });
    const wss = createWebSocketServer(server, { port, host: '127.0.0.1' });
    await wss.ready;
    return wss;
  }

  it('a server restart under a live subscription: the client resubscribes, no item twice', async () => {
    let wss = await start(await restartablePort(), 1);
    cleanups.push(() => wss.close({ timeout: 50 }));
    const port = wss.port;
    const transport = createWebSocketTransport({
      url: `ws://127.0.0.1:${port}/`,
      reconnect: { strategy: 'fixed', delay: 50, maxAttempts: 100 },
    });
    const client = createClient(transport);
    cleanups.push(() => client.close());
    const items: string[] = [];
    const ids: string[] = [];
    const sub = client.subscribe<string>(
      'ticks',
      { from: 'test' },
      { onItem: (i) => items.push(i), onResubscribed: (id) => ids.push(id) },
    );
    const first = await sub.ready;
    await until(() => items.length >= 3);
    await wss.close({ timeout: 50 });
    const before = items.length;
    wss = await start(port, 2);
    await until(() => ids.length === 1);
    await until(() => items.some((i) => i.startsWith('2:')) && items.length >= before + 3);
    expect(ids[0]).not.toBe(first);
    expect(sub.id).toBe(ids[0]);
    expect(new Set(items).size).toBe(items.length);
    const second = items.filter((i) => i.startsWith('2:'));
    expect(second.slice(0, 3)).toEqual(['2:1', '2:2', '2:3']);
    expect(items.indexOf('2:1')).toBeGreaterThanOrEqual(before);
    await sub.unsubscribe();
  });
});

describe('a publish to many subscribers over real WebSockets', () => {
  /** Frames a subscriber received after its subscribe answer. */
  interface Frame {
    readonly text: string;
    readonly isBinary: boolean;
  }

  /** Items every subscriber gets before a test's own. */
  const WARM_UP = 2;

  /** A server with `count` raw subscribers of `newHeads`, each past its first items. */
  async function subscribed(count: number) {
    const server = createServer();
    const subscriptions = createSubscriptions(server, { dialect: ethereumSubscriptions });
    subscriptions.subscription('newHeads');
    const wss = createWebSocketServer(server, { port: 0, host: '127.0.0.1' });
    await wss.ready;
    cleanups.push(() => wss.close({ timeout: 50 }));
    const subscribers: { readonly id: string; readonly frames: Frame[] }[] = [];
    for (let i = 0; i < count; i++) {
      const socket = new WebSocket(`ws://127.0.0.1:${wss.port}/`);
      cleanups.push(() => socket.terminate());
      await new Promise((resolve) => socket.once('open', resolve));
      const answer = await new Promise<string>((resolve) => {
        socket.once('message', (data) => resolve(String(data))); // the subscribe answer
        socket.send('{"jsonrpc":"2.0","id":1,"method":"eth_subscribe","params":["newHeads"]}');
      });
      const frames: Frame[] = [];
      socket.on('message', (data, isBinary) => frames.push({ text: String(data), isBinary }));
      subscribers.push({ id: (JSON.parse(answer) as { result: string }).result, frames });
    }
    const received = () => subscribers.reduce((sum, s) => sum + s.frames.length, 0);
    // Once every subscription's items flow (an item published before the subscribe answer went
    // out waits, as text, and the subscription's head is encoded at its first item after that).
    for (let warm = 1; warm <= WARM_UP; warm++) {
      subscriptions.publish('newHeads', { number: '0x0' });
      await until(() => received() === count * warm);
    }
    return { subscriptions, wss, subscribers, received };
  }

  it('is one socket send per subscriber, straight from the fan-out: no connection hop, no promise callback', async () => {
    const SUBSCRIBERS = 20;
    const ITEMS = 50;
    const { subscriptions, wss, received } = await subscribed(SUBSCRIBERS);

    let sendTexts = 0;
    for (const connection of wss.connections) {
      const sendText = connection.sendText;
      connection.sendText = (text) => {
        sendTexts++;
        return sendText.call(connection, text);
      };
    }
    const writes = vi.spyOn(NetSocket.prototype, 'write');
    const thens = vi.spyOn(Promise.prototype, 'then');
    for (let n = 1; n <= ITEMS; n++) {
      expect(subscriptions.publish('newHeads', { number: `0x${n.toString(16)}` })).toBe(
        SUBSCRIBERS,
      );
    }
    const counted = {
      writes: writes.mock.calls.length,
      thens: thens.mock.calls.length,
      sendTexts,
    };
    writes.mockRestore();
    thens.mockRestore();
    // One network write per subscriber and item: the transport writes each frame itself.
    expect(counted).toEqual({ writes: SUBSCRIBERS * ITEMS, thens: 0, sendTexts: 0 });
    await until(() => received() === SUBSCRIBERS * (ITEMS + WARM_UP));
  });

  it('encodes each item once: every subscriber gets a text frame of its own notification', async () => {
    const SUBSCRIBERS = 5;
    const ITEMS = 4;
    const { subscriptions, subscribers, received } = await subscribed(SUBSCRIBERS);
    const wsSends = vi.spyOn(WebSocket.prototype, 'send');
    const encodings = vi.spyOn(Buffer, 'from');
    for (let n = 1; n <= ITEMS; n++)
      subscriptions.publish('newHeads', { number: `0x${n}`, x: 'é' });
    const counted = { wsSends: wsSends.mock.calls.length, encodings: encodings.mock.calls.length };
    wsSends.mockRestore();
    encodings.mockRestore();
    // Each item was encoded once, and the transport wrote the frames itself (no compression).
    expect(counted).toEqual({ wsSends: 0, encodings: ITEMS });
    await until(() => received() === SUBSCRIBERS * (ITEMS + WARM_UP));
    for (const { id, frames } of subscribers) {
      expect(frames.slice(WARM_UP)).toEqual(
        Array.from({ length: ITEMS }, (_, i) => ({
          text: `{"jsonrpc":"2.0","method":"eth_subscription","params":{"subscription":"${id}","result":{"number":"0x${i + 1}","x":"é"}}}`,
          isBinary: false,
        })),
      );
    }
  });
});

describe('a subscriber that stops reading, over a real WebSocket', () => {
  it('is closed with SUBSCRIPTION_OVERFLOW while a reading subscriber gets every item', async () => {
    const server = createServer();
    const errors: unknown[] = [];
    const subscriptions = createSubscriptions(server, {
      maxQueue: 64,
      overflow: 'close',
      onError: (error) => errors.push(error),
    });
    subscriptions.subscription('blobs');
    const wss = createWebSocketServer(server, {
      port: 0,
      host: '127.0.0.1',
      backpressure: { highWaterMark: 64 * 1024 },
    });
    await wss.ready;
    cleanups.push(() => wss.close({ timeout: 50 }));
    const url = `ws://127.0.0.1:${wss.port}/`;
    const subscribe = '{"jsonrpc":"2.0","id":1,"method":"subscribe","params":{"name":"blobs"}}';

    // A raw socket that subscribes, then stops reading.
    const stuck = new WebSocket(url);
    cleanups.push(() => stuck.terminate());
    await new Promise((resolve) => stuck.once('open', resolve));
    await new Promise((resolve) => {
      stuck.once('message', resolve);
      stuck.send(subscribe);
    });
    (stuck as unknown as { _socket: { pause(): void } })._socket.pause();

    const reader = createClient(createWebSocketTransport({ url }));
    cleanups.push(() => reader.close());
    let received = 0;
    await reader.subscribe('blobs', undefined, { onItem: () => received++ }).ready;

    const ITEMS = 4_000;
    const blob = 'x'.repeat(4 * 1024);
    for (let i = 0; i < ITEMS; i++) {
      subscriptions.publish('blobs', blob);
      if (i % 8 === 7) await new Promise((resolve) => setTimeout(resolve, 1));
    }
    await until(() => received === ITEMS || errors.length > 1, 20_000);
    expect({ received, errors: errors.length }).toEqual({ received: ITEMS, errors: 1 });
    expect(errors[0]).toMatchObject({ code: 'SUBSCRIPTION_OVERFLOW' });
    expect(subscriptions.count('blobs')).toBe(1);
  }, 30_000);
});
