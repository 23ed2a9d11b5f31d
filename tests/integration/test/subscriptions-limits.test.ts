/**
 * A hostile subscriber over a real WebSocket server, on raw frames: the subscriptions one
 * connection may hold are capped, and all subscriptions of a connection that never reads share
 * one bounded budget while the other connections keep being served.
 */
import { ethereumSubscriptions } from '@jsonrpc-kit/core';
import { createServer, createSubscriptions } from '@jsonrpc-kit/server';
import { createWebSocketServer } from '@jsonrpc-kit/transport-ws';
import { afterEach, describe, expect, it } from 'vitest';
import { WebSocket } from 'ws';

const cleanups: (() => unknown)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

async function until(condition: () => boolean, timeout = 10_000): Promise<void> {
  const deadline = Date.now() + timeout;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error('timed out');
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
}

/** A raw `ws` socket that keeps every text frame it reads. */
async function rawSocket(url: string): Promise<{ socket: WebSocket; frames: string[] }> {
  const socket = new WebSocket(url);
  cleanups.push(() => socket.terminate());
  const frames: string[] = [];
  socket.on('message', (data) => frames.push(String(data)));
  await new Promise((resolve, reject) => {
    socket.once('open', resolve);
    socket.once('error', reject);
  });
  return { socket, frames };
}

const subscribe = (id: number) =>
  `{"jsonrpc":"2.0","id":${id},"method":"eth_subscribe","params":["newHeads"]}`;

async function serve(options: Parameters<typeof createSubscriptions>[1]) {
  const server = createServer();
  const subscriptions = createSubscriptions(server, {
    dialect: ethereumSubscriptions,
    ...options,
  });
  subscriptions.subscription('newHeads');
  const wss = createWebSocketServer(server, { port: 0, host: '127.0.0.1' });
  await wss.ready;
  cleanups.push(() => wss.close({ timeout: 50 }));
  return { subscriptions, wss, url: `ws://127.0.0.1:${wss.port}/` };
}

describe('subscriptions per connection, over a real WebSocket', () => {
  it('the subscribe past maxSubscriptionsPerConnection is answered -32002; another connection subscribes', async () => {
    const { subscriptions, url } = await serve({ maxSubscriptionsPerConnection: 3 });
    const { socket, frames } = await rawSocket(url);
    for (let id = 1; id <= 4; id++) socket.send(subscribe(id));
    await until(() => frames.length === 4);
    const refused = frames.filter((frame) => frame.includes('"error"'));
    expect(refused).toEqual([
      '{"jsonrpc":"2.0","id":4,"error":{"code":-32002,"message":"Too many subscriptions on this connection (limit 3)","data":{"limit":3}}}',
    ]);
    expect(subscriptions.count()).toBe(3);
    const other = await rawSocket(url);
    other.socket.send(subscribe(1));
    await until(() => other.frames.length === 1);
    expect(JSON.parse(other.frames[0]!).result).toMatch(/^0x[0-9a-f]{32}$/);
    expect(subscriptions.count()).toBe(4);
  });
});

describe('a connection that never reads, over a real WebSocket', () => {
  it('its 20 subscriptions hold at most the connection budget; a reader gets every item', async () => {
    const BUDGET = 2 * 1024 * 1024;
    const { subscriptions, wss, url } = await serve({ maxQueueBytesPerConnection: BUDGET });
    const stuck = await rawSocket(url);
    for (let id = 1; id <= 20; id++) stuck.socket.send(subscribe(id));
    await until(() => stuck.frames.length === 20);
    const [stuckConnection] = wss.connections;
    // It stops reading: the server's socket fills, then its send buffer passes the mark.
    (stuck.socket as unknown as { _socket: { pause(): void } })._socket.pause();
    const reader = await rawSocket(url);
    reader.socket.send(subscribe(1));
    await until(() => reader.frames.length === 1);

    const ITEMS = 3_000;
    const item = 'x'.repeat(16 * 1024);
    const itemSize = item.length + 200;
    let most = 0;
    for (let i = 0; i < ITEMS; i++) {
      subscriptions.publish('newHeads', item);
      most = Math.max(most, subscriptions.held(stuckConnection).bytes);
      if (most > 4 * BUDGET) break; // far past the bound: stop before memory grows
      if (i % 8 === 7) await new Promise((resolve) => setTimeout(resolve, 1));
    }
    expect(most).toBeGreaterThan(0); // it did fall behind
    expect(most).toBeLessThanOrEqual(BUDGET + itemSize);
    await until(() => reader.frames.length === ITEMS + 1, 20_000);
    expect(subscriptions.count()).toBe(21);
    expect(subscriptions.held(stuckConnection).bytes).toBeLessThanOrEqual(BUDGET + itemSize);
    expect(subscriptions.held(stuckConnection).items).toBeGreaterThan(0);
  }, 30_000);
});
