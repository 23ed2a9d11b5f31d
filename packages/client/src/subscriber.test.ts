import {
  createMemoryTransportPair,
  defineContract,
  ethereumSubscriptions,
  SubscriptionError,
  subscription,
  type Transport,
  type TransportHandler,
} from '@jsonrpc-kit/core';
import * as v from 'valibot';
import { describe, expect, it } from 'vitest';
import { createClient } from './index.js';

const tick = () => new Promise<void>((r) => setTimeout(r, 0));
async function until(check: () => boolean): Promise<void> {
  for (let i = 0; i < 400 && !check(); i++) await tick();
  expect(check()).toBe(true);
}

interface RawPeer {
  /** Every text the client sent, parsed. */
  readonly received: Array<{ id?: number; method: string; params?: any }>;
  push(text: string): Promise<void>;
  /** Answers every subscribe with `answer(call)` (a result text), by default a fresh id. */
  answer: (call: { id: number; params: any }) => string;
  subscribed: string[];
}

/**
 * A transport that can reconnect to a new raw peer: `reconnect()` drops the current memory
 * pair (onDisconnect), opens a new one and calls onReconnect, as the WebSocket transport does.
 */
function reconnecting(): {
  transport: Transport;
  peers: RawPeer[];
  reconnect(answer?: RawPeer['answer'], whileDown?: () => void): Promise<void>;
} {
  let handler: TransportHandler | undefined;
  let current: Transport | undefined;
  const peers: RawPeer[] = [];
  let counter = 0;
  /** Texts sent while disconnected: they go out once the new connection opens, as the WebSocket transport's queue does. */
  const queued: string[] = [];
  const open = async (answer?: RawPeer['answer']): Promise<void> => {
    const [client, server] = createMemoryTransportPair();
    const peer: RawPeer = {
      received: [],
      subscribed: [],
      push: (text) => server.send(text),
      answer: (call) => {
        const id = `0x${(++counter).toString(16)}`;
        peer.subscribed.push(id);
        return JSON.stringify({ jsonrpc: '2.0', id: call.id, result: id });
      },
    };
    if (answer !== undefined) peer.answer = answer;
    peers.push(peer);
    await server.start({
      onMessage: (text) => {
        const message = JSON.parse(text);
        peer.received.push(message);
        if (message.id === undefined) return;
        if (message.method === 'unsubscribe' || message.method === 'eth_unsubscribe') {
          void server.send(JSON.stringify({ jsonrpc: '2.0', id: message.id, result: true }));
        } else void server.send(peer.answer(message));
      },
      onClose: () => undefined,
    });
    await client.start({
      onMessage: (text) => handler?.onMessage(text),
      onClose: () => undefined,
    });
    current = client;
    for (const text of queued.splice(0)) await client.send(text);
  };
  const transport: Transport = {
    async start(h) {
      handler = h;
      await open();
    },
    send: (text) => {
      if (current !== undefined) return current.send(text);
      queued.push(text);
      return Promise.resolve();
    },
    async close() {
      await current?.close();
      handler?.onClose();
    },
  };
  return {
    transport,
    peers,
    async reconnect(answer, whileDown) {
      const old = current;
      current = undefined;
      await old?.close();
      handler?.onDisconnect?.();
      whileDown?.();
      await new Promise((resolve) => setTimeout(resolve, 0));
      await open(answer);
      handler?.onReconnect?.();
    },
  };
}

const item = (id: string, value: unknown) =>
  JSON.stringify({
    jsonrpc: '2.0',
    method: 'subscription',
    params: { subscription: id, item: value },
  });

describe('client.subscribe', () => {
  it('subscribes in the generic dialect, routes items by id, unsubscribes', async () => {
    const { transport, peers } = reconnecting();
    const other: unknown[] = [];
    const client = createClient(transport, { onNotification: (n) => void other.push(n.method) });
    const items: unknown[] = [];
    const sub = client.subscribe('ticks', { every: 1 }, { onItem: (i) => items.push(i) });
    const id = await sub.ready;
    const peer = peers[0]!;
    expect(peer.received[0]).toEqual({
      jsonrpc: '2.0',
      id: 1,
      method: 'subscribe',
      params: { name: 'ticks', params: { every: 1 } },
    });
    await peer.push(item(id, 1));
    await peer.push(item('0xother', 2)); // not ours: goes to onNotification
    await peer.push('{"jsonrpc":"2.0","method":"log","params":[]}');
    await until(() => other.length === 2);
    expect(items).toEqual([1]);
    await sub.unsubscribe();
    expect(peer.received.at(-1)).toMatchObject({
      method: 'unsubscribe',
      params: { subscription: id },
    });
    await peer.push(item(id, 3));
    await until(() => other.length === 3);
    expect(items).toEqual([1]);
    expect(sub.ended).toBe(true);
    await client.close();
  });

  it('speaks the Ethereum dialect when configured', async () => {
    const { transport, peers } = reconnecting();
    const client = createClient(transport, { subscriptionDialect: ethereumSubscriptions });
    const items: unknown[] = [];
    const sub = client.subscribe('logs', [{ address: '0x1' }], { onItem: (i) => items.push(i) });
    const id = await sub.ready;
    expect(peers[0]!.received[0]).toMatchObject({
      method: 'eth_subscribe',
      params: ['logs', { address: '0x1' }],
    });
    await peers[0]!.push(
      JSON.stringify({
        jsonrpc: '2.0',
        method: 'eth_subscription',
        params: { subscription: id, result: { n: 1 } },
      }),
    );
    await until(() => items.length === 1);
    expect(items).toEqual([{ n: 1 }]);
    await client.close();
  });

  it('an async iterator yields items, and break unsubscribes', async () => {
    const { transport, peers } = reconnecting();
    const client = createClient(transport);
    const sub = client.subscribe<number>('n');
    const id = await sub.ready;
    for (let i = 1; i <= 3; i++) await peers[0]!.push(item(id, i));
    const seen: number[] = [];
    for await (const n of sub) {
      seen.push(n);
      if (n === 3) break;
    }
    expect(seen).toEqual([1, 2, 3]);
    expect(sub.ended).toBe(true);
    expect(peers[0]!.received.at(-1)).toMatchObject({ method: 'unsubscribe' });
    await client.close();
  });

  it('items sent before the answer reaches the client are kept for that id', async () => {
    const { transport, peers } = reconnecting();
    const client = createClient(transport);
    const items: unknown[] = [];
    await client.request('warmup');
    const peer = peers[0]!;
    // The peer pushes an item first, then answers.
    peer.answer = (call) => {
      void peer.push(item('0xearly', 'first'));
      return JSON.stringify({ jsonrpc: '2.0', id: call.id, result: '0xearly' });
    };
    const sub = client.subscribe('y', undefined, { onItem: (i) => items.push(i) });
    expect(await sub.ready).toBe('0xearly');
    await until(() => items.length === 1);
    expect(items).toEqual(['first']);
    await client.close();
  });

  it('an end read before the answer ends the subscription after its early items', async () => {
    // An iterable that runs to its end in one go: the server's answer, items and end arrive in
    // one chunk, so the end is read before the answer carrying the id has been handled.
    const { transport, peers } = reconnecting();
    const client = createClient(transport);
    await client.request('warmup');
    const peer = peers[0]!;
    const end = (id: string, error?: unknown) =>
      JSON.stringify({
        jsonrpc: '2.0',
        method: 'subscription.end',
        params: error === undefined ? { subscription: id } : { subscription: id, error },
      });
    peer.answer = (call) => {
      const id = call.params.name === 'ok' ? '0xok' : '0xbad';
      void peer.push(item(id, 1));
      void peer.push(item(id, 2));
      void peer.push(end(id, id === '0xok' ? undefined : { code: -1, message: 'boom' }));
      return JSON.stringify({ jsonrpc: '2.0', id: call.id, result: id });
    };
    const sub = client.subscribe<number>('ok');
    const bad = client.subscribe<number>('bad');
    await until(() => sub.ended && bad.ended);
    const seen: number[] = [];
    for await (const n of sub) seen.push(n);
    expect(seen).toEqual([1, 2]);
    const seenBad: number[] = [];
    await expect(
      (async () => {
        for await (const n of bad) seenBad.push(n);
      })(),
    ).rejects.toThrow(/boom/);
    expect(seenBad).toEqual([1, 2]);
    await client.close();
  });

  it('early items are bounded over all ids: a flood of unknown ids holds at most 256', async () => {
    const { transport, peers } = reconnecting();
    const client = createClient(transport);
    const items: unknown[] = [];
    await client.request('warmup');
    const peer = peers[0]!;
    peer.answer = (call) => {
      for (let i = 0; i < 300; i++) void peer.push(item(`0xjunk${i}`, i));
      void peer.push(item('0xmine', 'late'));
      return JSON.stringify({ jsonrpc: '2.0', id: call.id, result: '0xmine' });
    };
    const sub = client.subscribe('y', undefined, { onItem: (i) => items.push(i) });
    await sub.ready;
    await peer.push(item('0xmine', 'after'));
    await until(() => items.length === 1);
    expect(items).toEqual(['after']); // 'late' came after 256 junk items and was not kept
    await client.close();
  });

  it('the server ending a subscription (subscription.end) ends the handle, with or without an error', async () => {
    const { transport, peers } = reconnecting();
    const client = createClient(transport);
    const errors: Error[] = [];
    const a = client.subscribe('a', undefined, { onError: (e) => errors.push(e) });
    const b = client.subscribe<number>('b');
    const [idA, idB] = [await a.ready, await b.ready];
    const end = (id: string, error?: unknown) =>
      JSON.stringify({
        jsonrpc: '2.0',
        method: 'subscription.end',
        params: error === undefined ? { subscription: id } : { subscription: id, error },
      });
    await peers[0]!.push(item(idB, 7));
    await peers[0]!.push(end(idA, { code: -32603, message: 'Subscriber too slow' }));
    await peers[0]!.push(end(idB));
    await until(() => a.ended && b.ended);
    expect(errors[0]).toMatchObject({ code: 'SUBSCRIPTION_ENDED' });
    expect(errors[0]!.message).toContain('Subscriber too slow');
    const rest: number[] = [];
    for await (const n of b) rest.push(n);
    expect(rest).toEqual([7]);
    await client.close();
  });

  it('validates items with the contract form and types them', async () => {
    const { transport, peers } = reconnecting();
    const errors: Error[] = [];
    const client = createClient(transport);
    const api = client.contract(
      defineContract({
        heads: subscription({ params: v.tuple([]), item: v.object({ number: v.number() }) }),
      }),
    );
    const numbers: number[] = [];
    const sub = api.heads({
      onItem: (head) => numbers.push(head.number),
      onError: (e) => errors.push(e),
    });
    const id = await sub.ready;
    await peers[0]!.push(item(id, { number: 1 }));
    await peers[0]!.push(item(id, { number: 'x' }));
    await peers[0]!.push(item(id, { number: 2 }));
    await until(() => numbers.length === 2);
    expect(numbers).toEqual([1, 2]);
    expect(errors).toHaveLength(1);
    expect(errors[0]!.name).toBe('ResultValidationError');
    await client.close();
  });

  it('a refused subscription rejects ready and tells onError', async () => {
    const { transport, peers } = reconnecting();
    const client = createClient(transport);
    await client.request('warmup').catch(() => undefined);
    peers[0]!.answer = (call) =>
      JSON.stringify({
        jsonrpc: '2.0',
        id: call.id,
        error: { code: -32602, message: 'Unknown subscription "nope"' },
      });
    const errors: Error[] = [];
    const sub = client.subscribe('nope', undefined, { onError: (e) => errors.push(e) });
    await expect(sub.ready).rejects.toMatchObject({ code: 'SUBSCRIPTION_REFUSED' });
    expect(errors[0]).toBeInstanceOf(SubscriptionError);
    expect(sub.ended).toBe(true);
    await client.close();
  });

  it('an aborted signal unsubscribes; closing the client fails live subscriptions', async () => {
    const { transport } = reconnecting();
    const client = createClient(transport);
    const controller = new AbortController();
    const a = client.subscribe('a', undefined, { signal: controller.signal });
    await a.ready;
    controller.abort();
    expect(a.ended).toBe(true);
    const errors: Error[] = [];
    const b = client.subscribe('b', undefined, { onError: (e) => errors.push(e) });
    await b.ready;
    await client.close();
    await tick();
    expect(b.ended).toBe(true);
    expect(errors[0]!.name).toBe('ConnectionClosedError');
  });
});

describe('client.subscribe after a reconnect', () => {
  it('subscribes again with the same params, maps the new id to the same handle, tells onResubscribed', async () => {
    const { transport, peers, reconnect } = reconnecting();
    const client = createClient(transport);
    const items: unknown[] = [];
    const resubscribed: string[] = [];
    const sub = client.subscribe(
      'ticks',
      { every: 5 },
      { onItem: (i) => items.push(i), onResubscribed: (id) => resubscribed.push(id) },
    );
    const first = await sub.ready;
    await peers[0]!.push(item(first, 1));
    await reconnect();
    await until(() => resubscribed.length === 1);
    const second = resubscribed[0]!;
    expect(second).not.toBe(first);
    expect(sub.id).toBe(second);
    expect(peers[1]!.received[0]).toMatchObject({
      method: 'subscribe',
      params: { name: 'ticks', params: { every: 5 } },
    });
    await peers[1]!.push(item(first, 'stale id')); // the old id means nothing now
    await peers[1]!.push(item(second, 2));
    await until(() => items.length === 2);
    expect(items).toEqual([1, 2]);
    await client.close();
  });

  it('a subscribe made while disconnected goes out once, not again on the reconnect', async () => {
    const { transport, peers, reconnect } = reconnecting();
    const client = createClient(transport);
    const first = client.subscribe('a');
    await first.ready;
    let late: ReturnType<typeof client.subscribe> | undefined;
    await reconnect(undefined, () => {
      late = client.subscribe('b');
    });
    await late!.ready;
    await until(() => first.id !== undefined);
    const subscribes = peers[1]!.received.filter((m) => m.method === 'subscribe');
    expect(subscribes.map((m) => m.params.name).sort()).toEqual(['a', 'b']);
    await client.close();
  });

  it('a refusal on resubscribe fails the handle clearly', async () => {
    const { transport, reconnect } = reconnecting();
    const client = createClient(transport);
    const errors: Error[] = [];
    const sub = client.subscribe('ticks', undefined, { onError: (e) => errors.push(e) });
    await sub.ready;
    await reconnect((call) =>
      JSON.stringify({ jsonrpc: '2.0', id: call.id, error: { code: -32602, message: 'gone' } }),
    );
    await until(() => errors.length === 1);
    expect(errors[0]).toMatchObject({ code: 'SUBSCRIPTION_REFUSED' });
    expect(errors[0]!.message).toContain('"ticks"');
    expect(sub.ended).toBe(true);
    await client.close();
  });

  it('resubscribe: false ends the subscription when the connection drops', async () => {
    const { transport, peers, reconnect } = reconnecting();
    const client = createClient(transport);
    const errors: Error[] = [];
    const sub = client.subscribe('once', undefined, {
      resubscribe: false,
      onError: (e) => errors.push(e),
    });
    await sub.ready;
    await reconnect();
    expect(errors[0]).toMatchObject({ code: 'SUBSCRIPTION_ENDED' });
    expect(peers[1]!.received).toEqual([]);
    await client.close();
  });
});
