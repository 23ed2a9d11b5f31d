import { defineContract, ethereumSubscriptions, method, subscription } from '@jsonrpc-kit/core';
import * as v from 'valibot';
import { describe, expect, it } from 'vitest';
import { rawPeer } from '../test/raw-peer.js';

const chain = defineContract({
  getLogs: method({ params: v.tuple([v.object({ address: v.string() })]) }),
  logs: subscription({ params: v.tuple([v.object({ address: v.string() })]), item: v.string() }),
  newHeads: subscription({ params: v.tuple([]) }),
  heads: subscription({ params: v.tuple([v.optional(v.boolean())]) }),
  pair: subscription({ params: v.tuple([v.string(), v.number()]) }),
});

describe('contract subscriptions take their params as methods do', () => {
  it('spreads a tuple, as the method of the same tuple, then takes options', async () => {
    const peer = rawPeer({ subscriptionDialect: ethereumSubscriptions });
    const api = peer.client.contract(chain);
    void api.getLogs({ address: '0x1' }).catch(() => {});
    expect(await peer.next()).toBe(
      '{"jsonrpc":"2.0","id":1,"method":"getLogs","params":[{"address":"0x1"}]}',
    );
    const seen: string[] = [];
    const logs = api.logs({ address: '0x1' }, { onItem: (log) => seen.push(log) });
    expect(await peer.next()).toBe(
      '{"jsonrpc":"2.0","id":2,"method":"eth_subscribe","params":["logs",{"address":"0x1"}]}',
    );
    await peer.reply('{"jsonrpc":"2.0","id":2,"result":"0xa"}');
    expect(await logs.ready).toBe('0xa');
    await peer.reply(
      '{"jsonrpc":"2.0","method":"eth_subscription","params":{"subscription":"0xa","result":"entry"}}',
    );
    await peer.settle();
    expect(seen).toEqual(['entry']);
    void api.pair('a', 1).ready.catch(() => {});
    expect(await peer.next()).toBe(
      '{"jsonrpc":"2.0","id":3,"method":"eth_subscribe","params":["pair","a",1]}',
    );
    await peer.client.close();
  });

  it('options follow every place of the tuple; left-out places send nothing', async () => {
    const peer = rawPeer({ subscriptionDialect: ethereumSubscriptions });
    const api = peer.client.contract(chain);
    const controller = new AbortController();
    void api.newHeads({ signal: controller.signal }).ready.catch(() => {});
    expect(await peer.next()).toBe(
      '{"jsonrpc":"2.0","id":1,"method":"eth_subscribe","params":["newHeads"]}',
    );
    void api.heads(true).ready.catch(() => {});
    expect(await peer.next()).toBe(
      '{"jsonrpc":"2.0","id":2,"method":"eth_subscribe","params":["heads",true]}',
    );
    void api.heads(undefined, { resubscribe: false }).ready.catch(() => {});
    expect(await peer.next()).toBe(
      '{"jsonrpc":"2.0","id":3,"method":"eth_subscribe","params":["heads"]}',
    );
    await peer.client.close();
  });
});
