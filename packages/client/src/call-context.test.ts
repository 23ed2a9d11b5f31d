import {
  createMemoryTransportPair,
  type SendOptions,
  type Transport,
  type TransportHandler,
} from '@jsonrpc-kit/core';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { createClient } from './client.js';
import type { Client } from './types.js';

const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));

const clients: Client[] = [];
afterEach(async () => {
  vi.useRealTimers();
  for (const client of clients.splice(0)) await client.close();
});

/** A client over a memory pair whose other side records the raw text and answers `null`. */
async function rawPeer(options: Parameters<typeof createClient>[1] = {}) {
  const [a, b] = createMemoryTransportPair();
  const wire: string[] = [];
  await b.start({
    onMessage: (text) => {
      wire.push(text);
      const parsed = JSON.parse(text) as { id?: number } | { id?: number }[];
      const answers = (Array.isArray(parsed) ? parsed : [parsed])
        .filter((message) => message.id !== undefined)
        .map((message) => `{"jsonrpc":"2.0","id":${message.id},"result":null}`);
      if (answers.length > 0) {
        void b.send(Array.isArray(parsed) ? `[${answers.join(',')}]` : answers[0]!);
      }
    },
    onClose: () => {},
  });
  const client = createClient(a, options);
  clients.push(client);
  return { client, wire };
}

describe('call context on a duplex transport (raw bytes)', () => {
  it('without deadline or meta the wire is byte-for-byte unchanged', async () => {
    const { client, wire } = await rawPeer({ callTimeout: 5_000 });
    await client.request('add', { a: 1 }, { timeout: 1_000 });
    await client.request('ping');
    await client.request('sum', [1, 2], { signal: new AbortController().signal });
    expect(wire).toEqual([
      '{"jsonrpc":"2.0","id":1,"method":"add","params":{"a":1}}',
      '{"jsonrpc":"2.0","id":2,"method":"ping"}',
      '{"jsonrpc":"2.0","id":3,"method":"sum","params":[1,2]}',
    ]);
  });

  it('meta and the time left travel in params._meta', async () => {
    const { client, wire } = await rawPeer();
    await client.request('add', { a: 1 }, { meta: { tenant: 'acme' }, timeout: 1_500 });
    await client.request('ping', undefined, { meta: { trace: 't1' } });
    expect(wire).toEqual([
      '{"jsonrpc":"2.0","id":1,"method":"add","params":{"a":1,"_meta":{"tenant":"acme","rpc.timeout":1500}}}',
      '{"jsonrpc":"2.0","id":2,"method":"ping","params":{"_meta":{"trace":"t1"}}}',
    ]);
  });

  it('a deadline travels as the milliseconds left when the call is sent', async () => {
    vi.useFakeTimers({ now: 1_000_000, toFake: ['Date'] });
    const { client, wire } = await rawPeer();
    await client.request('add', { a: 1 }, { deadline: 1_000_000 + 2_500 });
    await client.request('add', { a: 2 }, { deadline: new Date(1_000_000 + 700), timeout: 300 });
    expect(wire).toEqual([
      '{"jsonrpc":"2.0","id":1,"method":"add","params":{"a":1,"_meta":{"rpc.timeout":2500}}}',
      '{"jsonrpc":"2.0","id":2,"method":"add","params":{"a":2,"_meta":{"rpc.timeout":300}}}',
    ]);
  });

  it('keeps the members an existing _meta has (a progress token), and a custom member name', async () => {
    const { client, wire } = await rawPeer({ contextMember: 'ctx' });
    await client.request('a', { _meta: { progressToken: 7 } }, { meta: { user: 'u' } });
    expect(wire).toEqual([
      '{"jsonrpc":"2.0","id":1,"method":"a","params":{"_meta":{"progressToken":7},"ctx":{"user":"u"}}}',
    ]);
    const other = await rawPeer();
    await other.client.request('a', { _meta: { progressToken: 7 } }, { meta: { user: 'u' } });
    expect(other.wire).toEqual([
      '{"jsonrpc":"2.0","id":1,"method":"a","params":{"_meta":{"progressToken":7,"user":"u"}}}',
    ]);
  });

  it('by-position params have no place for it: they go out unchanged, the deadline bounds the wait here', async () => {
    const [a, b] = createMemoryTransportPair();
    const wire: string[] = [];
    await b.start({ onMessage: (text) => wire.push(text), onClose: () => {} }); // never answers
    const client = createClient(a);
    clients.push(client);
    await expect(
      client.request('sum', [1, 2], { meta: { a: 1 }, deadline: Date.now() + 30 }),
    ).rejects.toMatchObject({ code: 'TIMEOUT' });
    expect(wire).toEqual(['{"jsonrpc":"2.0","id":1,"method":"sum","params":[1,2]}']);
  });

  it('a deadline that passed already rejects at once with a TimeoutError, unsent', async () => {
    const { client, wire } = await rawPeer();
    await expect(
      client.request('add', { a: 1 }, { deadline: Date.now() - 1 }),
    ).rejects.toMatchObject({ code: 'TIMEOUT' });
    expect(wire).toEqual([]);
  });

  it('the deadline bounds the wait here too', async () => {
    const [a, b] = createMemoryTransportPair();
    await b.start({ onMessage: () => {}, onClose: () => {} }); // never answers
    const client = createClient(a);
    clients.push(client);
    const started = Date.now();
    await expect(client.request('slow', {}, { deadline: Date.now() + 30 })).rejects.toMatchObject({
      code: 'TIMEOUT',
    });
    expect(Date.now() - started).toBeLessThan(2_000);
  });

  it('a deadline too far for a timer travels but does not time the call out at once', async () => {
    const [a, b] = createMemoryTransportPair();
    const wire: string[] = [];
    await b.start({ onMessage: (text) => wire.push(text), onClose: () => {} }); // never answers
    const client = createClient(a);
    clients.push(client);
    let settled = false;
    const call = client.request('a', {}, { deadline: Date.now() + 100_000_000_000 });
    call.then(
      () => (settled = true),
      () => (settled = true),
    );
    await sleep(30);
    expect(settled).toBe(false);
    expect(wire[0]).toMatch(/"rpc.timeout":\d{11,12}\}/);
    await client.close();
    await call.catch(() => undefined);
  });

  it('a call with a context leaves the auto-batch queue and goes alone', async () => {
    const { client, wire } = await rawPeer({ batch: true });
    await Promise.all([
      client.request('a', {}),
      client.request('b', {}, { meta: { m: 1 } }),
      client.request('c', {}),
    ]);
    expect(wire).toContain('{"jsonrpc":"2.0","id":2,"method":"b","params":{"_meta":{"m":1}}}');
    expect(wire).toContain(
      '[{"jsonrpc":"2.0","id":1,"method":"a","params":{}},{"jsonrpc":"2.0","id":3,"method":"c","params":{}}]',
    );
  });
});

describe('call context on a transport that carries it (HTTP)', () => {
  it('hands the context to the transport and leaves the params untouched', async () => {
    const sent: Array<[string, SendOptions | undefined]> = [];
    let handler: TransportHandler | undefined;
    const transport: Transport = {
      carriesCallContext: true,
      start: async (h) => {
        handler = h;
      },
      send: async (text, options) => {
        sent.push([text, options]);
        const { id } = JSON.parse(text) as { id: number };
        handler?.onMessage(`{"jsonrpc":"2.0","id":${id},"result":1}`);
      },
      close: async () => handler?.onClose(),
    };
    const client = createClient(transport);
    clients.push(client);
    await sleep(0);
    await client.request('sum', [1, 2], { meta: { tenant: 'acme' }, timeout: 800 });
    await client.request('sum', [3, 4]);
    expect(sent[0]?.[0]).toBe('{"jsonrpc":"2.0","id":1,"method":"sum","params":[1,2]}');
    expect(sent[0]?.[1]?.callContext).toEqual({ timeout: 800, meta: { tenant: 'acme' } });
    expect(sent[1]?.[0]).toBe('{"jsonrpc":"2.0","id":2,"method":"sum","params":[3,4]}');
    expect(sent[1]?.[1]?.callContext).toBeUndefined();
  });
});
