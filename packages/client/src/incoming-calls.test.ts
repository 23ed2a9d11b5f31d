import { createMemoryTransportPair, type IncomingContext, JsonRpcError } from '@jsonrpc-kit/core';
import { describe, expect, it } from 'vitest';
import { rawPeer } from '../test/raw-peer.js';
import { createClient } from './index.js';

describe('requests from the other side', () => {
  it('answers -32601 without a handler', async () => {
    const peer = rawPeer();
    await peer.reply('{"jsonrpc":"2.0","id":"s1","method":"workspace/configuration","params":{}}');
    expect(await peer.next()).toBe(
      '{"jsonrpc":"2.0","id":"s1","error":{"code":-32601,"message":"Method not found"}}',
    );
  });

  it('answers with what onRequest returns, sync or async, with the client as peer', async () => {
    let seen: IncomingContext | undefined;
    const peer = rawPeer({
      onRequest: (request, ctx) => {
        seen = ctx;
        if (request.method === 'sync') return { echo: request.params };
        return Promise.resolve(42);
      },
    });
    await peer.reply('{"jsonrpc":"2.0","id":1,"method":"sync","params":[1]}');
    expect(await peer.next()).toBe('{"jsonrpc":"2.0","id":1,"result":{"echo":[1]}}');
    await peer.reply('{"jsonrpc":"2.0","id":2,"method":"async"}');
    expect(await peer.next()).toBe('{"jsonrpc":"2.0","id":2,"result":42}');
    expect(seen?.peer).toBe(peer.client);
    expect(seen?.signal.aborted).toBe(false);
    expect(seen?.transport).toEqual({});
    await peer.client.close();
    expect(seen?.signal.aborted).toBe(true);
  });

  it('answers undefined as null and echoes ids exactly, big integers included', async () => {
    const peer = rawPeer({ onRequest: () => undefined });
    await peer.reply('{"jsonrpc":"2.0","id":9007199254740993,"method":"m"}');
    expect(await peer.next()).toBe('{"jsonrpc":"2.0","id":9007199254740993,"result":null}');
    await peer.reply('{"jsonrpc":"2.0","id":null,"method":"m"}');
    expect(await peer.next()).toBe('{"jsonrpc":"2.0","id":null,"result":null}');
  });

  it('passes a JsonRpcError through and hides anything else as -32603', async () => {
    const peer = rawPeer({
      onRequest: (request) => {
        if (request.method === 'wire') throw new JsonRpcError(1001, 'Nope', { why: 1 });
        if (request.method === 'async') return Promise.reject(new Error('secret path /etc'));
        if (request.method === 'bigint') return 10n;
        throw new Error('secret');
      },
    });
    await peer.reply('{"jsonrpc":"2.0","id":1,"method":"wire"}');
    expect(await peer.next()).toBe(
      '{"jsonrpc":"2.0","id":1,"error":{"code":1001,"message":"Nope","data":{"why":1}}}',
    );
    await peer.reply('{"jsonrpc":"2.0","id":2,"method":"sync"}');
    expect(await peer.next()).toBe(
      '{"jsonrpc":"2.0","id":2,"error":{"code":-32603,"message":"Internal error"}}',
    );
    await peer.reply('{"jsonrpc":"2.0","id":3,"method":"async"}');
    expect(await peer.next()).toBe(
      '{"jsonrpc":"2.0","id":3,"error":{"code":-32603,"message":"Internal error"}}',
    );
    await peer.reply('{"jsonrpc":"2.0","id":4,"method":"bigint"}');
    expect(JSON.parse(await peer.next())).toMatchObject({ id: 4, error: { code: -32603 } });
    expect(peer.errors.map((e) => e.message)).toEqual([
      'secret',
      'secret path /etc',
      expect.any(String),
    ]);
  });

  it('answers a batch of requests with one batch, notifications without a slot', async () => {
    const notes: string[] = [];
    const peer = rawPeer({
      onRequest: (request) => request.method,
      onNotification: (n) => {
        notes.push(n.method);
      },
    });
    await peer.reply(
      '[{"jsonrpc":"2.0","id":1,"method":"a"},{"jsonrpc":"2.0","method":"n"},{"jsonrpc":"2.0","id":2,"method":"b"}]',
    );
    expect(await peer.next()).toBe(
      '[{"jsonrpc":"2.0","id":1,"result":"a"},{"jsonrpc":"2.0","id":2,"result":"b"}]',
    );
    expect(notes).toEqual(['n']);
  });

  it('answers an invalid request that has an id with -32600, and only reports one without', async () => {
    const peer = rawPeer({ onRequest: () => 1 });
    await peer.reply('{"jsonrpc":"2.0","id":5,"method":7}');
    expect(await peer.next()).toBe(
      '{"jsonrpc":"2.0","id":5,"error":{"code":-32600,"message":"Invalid Request"}}',
    );
    await peer.reply('{"jsonrpc":"2.0","method":"n","params":3}');
    await peer.settle();
    expect(peer.received).toHaveLength(1);
    expect(peer.errors).toHaveLength(2);
  });

  it('delivers notifications and reports a failing notification handler', async () => {
    const seen: unknown[] = [];
    const peer = rawPeer({
      onNotification: (n) => {
        seen.push(n.params);
        if (n.method === 'bad') throw new Error('handler broke');
        if (n.method === 'badAsync') return Promise.reject(new Error('async broke'));
        return undefined;
      },
    });
    await peer.reply('{"jsonrpc":"2.0","method":"progress","params":{"done":1}}');
    await peer.reply('{"jsonrpc":"2.0","method":"bad"}');
    await peer.reply('{"jsonrpc":"2.0","method":"badAsync"}');
    await peer.settle();
    expect(seen).toEqual([{ done: 1 }, undefined, undefined]);
    expect(peer.errors.map((e) => e.message)).toEqual(['handler broke', 'async broke']);
    expect(peer.received).toEqual([]);
  });

  it('lets two clients call each other over one pair (duplex)', async () => {
    const [a, b] = createMemoryTransportPair();
    const left = createClient(a, { onRequest: (r) => `left:${r.method}` });
    const right = createClient(b, {
      onRequest: async (r, ctx) => `right:${r.method}+${await ctx.peer.request('inner')}`,
    });
    expect(await left.request('outer')).toBe('right:outer+left:inner');
    expect(await right.request('x')).toBe('left:x');
    await left.close();
    await right.closed;
  });
});
