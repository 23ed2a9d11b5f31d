import { ServerBusyError } from '@jsonrpc-kit/core';
import { afterEach, describe, expect, it } from 'vitest';
import { type RawPeer, rawPeer } from '../test/raw-peer.js';
import { retry } from './index.js';

const peers: RawPeer[] = [];
afterEach(async () => {
  await Promise.all(peers.splice(0).map((peer) => peer.client.close()));
});

function open(): RawPeer {
  const peer = rawPeer();
  peers.push(peer);
  return peer;
}

const busy = (id: number) =>
  `{"jsonrpc":"2.0","id":${id},"error":{"code":-32002,"message":"Server busy"}}`;

describe('retry()', () => {
  it('sends an idempotent request again, with a new id, after -32002', async () => {
    const peer = open();
    peer.client.use(retry({ idempotent: (m) => m === 'get', delay: 1 }));
    const call = peer.client.request('get', { key: 'k' });
    expect(JSON.parse(await peer.next())).toMatchObject({ id: 1, method: 'get' });
    await peer.reply(busy(1));
    expect(JSON.parse(await peer.next())).toMatchObject({
      id: 2,
      method: 'get',
      params: { key: 'k' },
    });
    await peer.reply('{"jsonrpc":"2.0","id":2,"result":"v"}');
    expect(await call).toBe('v');
  });

  it('gives up after `maxAttempts` attempts in all, with the last error', async () => {
    const peer = open();
    peer.client.use(retry({ idempotent: () => true, maxAttempts: 2, delay: 1 }));
    const call = peer.client.request('get').catch((e: unknown) => e);
    await peer.next();
    await peer.reply(busy(1));
    await peer.next();
    await peer.reply(busy(2));
    expect(await call).toBeInstanceOf(ServerBusyError);
  });

  it('never repeats other methods, or errors not worth it', async () => {
    const peer = open();
    peer.client.use(retry({ idempotent: (m) => m === 'get', delay: 1 }));
    const write = peer.client.request('put').catch((e: unknown) => e);
    await peer.next();
    await peer.reply(busy(1));
    expect(await write).toBeInstanceOf(ServerBusyError);
    const read = peer.client.request('get').catch((e: unknown) => e);
    await peer.next();
    await peer.reply('{"jsonrpc":"2.0","id":2,"error":{"code":-32602,"message":"Invalid params"}}');
    expect(await read).toMatchObject({ code: -32602 });
    await peer.settle();
    expect(peer.client.pending).toBe(0);
  });

  it('retries a timeout', async () => {
    const peer = open();
    peer.client.use(retry({ idempotent: () => true, delay: 1 }));
    const call = peer.client.request('get', undefined, { timeout: 20 });
    await peer.next();
    // The first attempt times out; the second is answered.
    expect(JSON.parse(await peer.next())).toMatchObject({ id: 2 });
    await peer.reply('{"jsonrpc":"2.0","id":2,"result":1}');
    expect(await call).toBe(1);
  });
});
