/**
 * Subscriptions interop, Ethereum dialect: viem's `webSocket` transport (`watchBlockNumber`,
 * `watchBlocks`) against the eth-api example built on `createSubscriptions`, and the kit's client
 * against a hand-written raw `ws` server speaking `eth_subscribe` / `eth_subscription`.
 */
import { createClient } from '@jsonrpc-kit/client';
import { ethereumSubscriptions } from '@jsonrpc-kit/core';
import { createWebSocketTransport } from '@jsonrpc-kit/transport-ws';
import { createPublicClient, webSocket } from 'viem';
import { afterEach, describe, expect, it } from 'vitest';
import { WebSocketServer } from 'ws';
import { createEthApi, type EthApi, TICKER_ADDRESS } from '../../../examples/eth-api/src/chain.js';

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

async function chain(): Promise<{ api: EthApi; url: string }> {
  const api = createEthApi({ blockTime: 20 });
  const port = await api.listen(0, '127.0.0.1');
  cleanups.push(() => api.close());
  return { api, url: `ws://127.0.0.1:${port}/` };
}

function viemClient(url: string) {
  const client = createPublicClient({ transport: webSocket(url, { retryCount: 0 }) });
  cleanups.push(async () => (await client.transport.getRpcClient()).close());
  return client;
}

describe('viem webSocket transport → kit subscriptions (Ethereum dialect)', () => {
  it('watchBlockNumber gets increasing numbers; unwatch leaves zero server-side subscriptions', async () => {
    const { api, url } = await chain();
    const viem = viemClient(url);
    const numbers: bigint[] = [];
    const errors: Error[] = [];
    const unwatch = viem.watchBlockNumber({
      onBlockNumber: (n) => numbers.push(n),
      onError: (e) => errors.push(e),
    });
    await until(() => numbers.length >= 3);
    expect(api.subscriptions.count('newHeads')).toBe(1);
    unwatch();
    await until(() => api.subscriptions.count() === 0);
    expect(errors).toEqual([]);
    for (let i = 1; i < numbers.length; i++) expect(numbers[i]! > numbers[i - 1]!).toBe(true);
  });

  it('watchBlocks gets formatted blocks; unwatch leaves zero server-side subscriptions', async () => {
    const { api, url } = await chain();
    const viem = viemClient(url);
    const blocks: { number: bigint | null; hash: string | null }[] = [];
    const unwatch = viem.watchBlocks({ onBlock: (block) => blocks.push(block) });
    await until(() => blocks.length >= 2);
    expect(typeof blocks[0]!.number).toBe('bigint');
    expect(blocks[0]!.hash).toMatch(/^0x[0-9a-f]{64}$/);
    unwatch();
    await until(() => api.subscriptions.count() === 0);
  });

  it('watchPendingTransactions and watchEvent (logs filtered by address) need only the producers', async () => {
    const { api, url } = await chain();
    const viem = viemClient(url);
    const hashes: string[] = [];
    const logs: { address: string; blockNumber: bigint | null }[] = [];
    const none: unknown[] = [];
    const unwatchTx = viem.watchPendingTransactions({
      onTransactions: (batch) => hashes.push(...batch),
    });
    const unwatchLogs = viem.watchEvent({
      address: TICKER_ADDRESS,
      onLogs: (batch) => logs.push(...batch),
    });
    const unwatchOther = viem.watchEvent({
      address: '0x00000000000000000000000000000000000000b2',
      onLogs: (batch) => none.push(...batch),
    });
    await until(() => hashes.length >= 2 && logs.length >= 2);
    expect(hashes[0]).toMatch(/^0x[0-9a-f]{64}$/);
    expect(logs[0]!.address).toBe(TICKER_ADDRESS);
    expect(typeof logs[0]!.blockNumber).toBe('bigint');
    expect(api.subscriptions.count('logs')).toBe(2);
    expect(none).toEqual([]);
    unwatchTx();
    unwatchLogs();
    unwatchOther();
    await until(() => api.subscriptions.count() === 0);
  });

  it('two watchers on one socket get one subscription each, and both unwatch cleanly', async () => {
    const { api, url } = await chain();
    const viem = viemClient(url);
    let a = 0;
    let b = 0;
    const unwatchA = viem.watchBlockNumber({ onBlockNumber: () => a++ });
    const unwatchB = viem.watchBlocks({ onBlock: () => b++ });
    await until(() => a >= 2 && b >= 2);
    expect(api.subscriptions.count()).toBe(2);
    expect(api.subscriptions.connections).toBe(1);
    unwatchA();
    unwatchB();
    await until(() => api.subscriptions.count() === 0 && api.subscriptions.connections === 0);
  });
});

describe('kit client → hand-written raw ws server speaking the Ethereum dialect', () => {
  it('subscribes, receives eth_subscription items for its id only, unsubscribes', async () => {
    const wss = new WebSocketServer({ host: '127.0.0.1', port: 0 });
    await new Promise<void>((resolve) => wss.once('listening', () => resolve()));
    cleanups.push(() => new Promise<void>((resolve) => wss.close(() => resolve())));
    const received: unknown[] = [];
    wss.on('connection', (socket) => {
      socket.on('message', (data) => {
        const message = JSON.parse(String(data));
        received.push(message);
        if (message.method === 'eth_subscribe') {
          socket.send(JSON.stringify({ jsonrpc: '2.0', id: message.id, result: '0xcafe' }));
          for (const [id, n] of [
            ['0xcafe', 1],
            ['0xbeef', 99],
            ['0xcafe', 2],
          ] as const) {
            socket.send(
              JSON.stringify({
                jsonrpc: '2.0',
                method: 'eth_subscription',
                params: { subscription: id, result: { number: `0x${n.toString(16)}` } },
              }),
            );
          }
        } else if (message.method === 'eth_unsubscribe') {
          socket.send(JSON.stringify({ jsonrpc: '2.0', id: message.id, result: true }));
        }
      });
    });
    const { port } = wss.address() as { port: number };
    const client = createClient(createWebSocketTransport({ url: `ws://127.0.0.1:${port}/` }), {
      subscriptionDialect: ethereumSubscriptions,
    });
    cleanups.push(() => client.close());
    const heads: unknown[] = [];
    const sub = client.subscribe('newHeads', [], { onItem: (h) => heads.push(h) });
    expect(await sub.ready).toBe('0xcafe');
    await until(() => heads.length === 2);
    expect(heads).toEqual([{ number: '0x1' }, { number: '0x2' }]);
    await sub.unsubscribe();
    expect(received).toEqual([
      { jsonrpc: '2.0', id: 1, method: 'eth_subscribe', params: ['newHeads'] },
      { jsonrpc: '2.0', id: 2, method: 'eth_unsubscribe', params: ['0xcafe'] },
    ]);
  });
});
