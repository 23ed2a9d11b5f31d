import {
  ConnectionClosedError,
  InvalidParamsError,
  JsonRpcError,
  MethodNotFoundError,
  ProtocolError,
} from '@jsonrpc-kit/core';
import { describe, expect, it } from 'vitest';
import { rawPeer } from '../test/raw-peer.js';

describe('request and notify on the wire', () => {
  it('sends a request as exact text and resolves with the result', async () => {
    const peer = rawPeer();
    const result = peer.client.request<number>('add', [1, 2]);
    expect(await peer.next()).toBe('{"jsonrpc":"2.0","id":1,"method":"add","params":[1,2]}');
    await peer.reply('{"jsonrpc":"2.0","id":1,"result":3}');
    expect(await result).toBe(3);
    expect(peer.client.pending).toBe(0);
    expect(peer.errors).toEqual([]);
  });

  it('omits params when there are none and sends named params as an object', async () => {
    const peer = rawPeer();
    void peer.client.request('ping').catch(() => {});
    void peer.client.request('divide', { a: 1, b: 2 }).catch(() => {});
    expect(await peer.next()).toBe('{"jsonrpc":"2.0","id":1,"method":"ping"}');
    expect(await peer.next()).toBe(
      '{"jsonrpc":"2.0","id":2,"method":"divide","params":{"a":1,"b":2}}',
    );
    await peer.client.close();
  });

  it('sends a notification without an id member', async () => {
    const peer = rawPeer();
    await peer.client.notify('log', { message: 'hi' });
    await peer.client.notify('tick');
    expect(await peer.next()).toBe('{"jsonrpc":"2.0","method":"log","params":{"message":"hi"}}');
    expect(await peer.next()).toBe('{"jsonrpc":"2.0","method":"tick"}');
    expect(peer.client.pending).toBe(0);
  });

  it('numbers ids 1, 2, 3 and accepts a custom generator', async () => {
    const peer = rawPeer();
    for (let i = 0; i < 3; i++) void peer.client.request('m').catch(() => {});
    const ids = [];
    for (let i = 0; i < 3; i++) ids.push(JSON.parse(await peer.next()).id);
    expect(ids).toEqual([1, 2, 3]);
    await peer.client.close();

    let n = 0;
    const custom = rawPeer({ generateId: () => `req-${++n}` });
    const result = custom.client.request('m');
    expect(await custom.next()).toBe('{"jsonrpc":"2.0","id":"req-1","method":"m"}');
    await custom.reply('{"jsonrpc":"2.0","id":"req-1","result":"ok"}');
    expect(await result).toBe('ok');
  });

  it('rejects at once when a custom generator repeats a pending id', async () => {
    const peer = rawPeer({ generateId: () => 7 });
    const first = peer.client.request('a');
    await expect(peer.client.request('b')).rejects.toThrow(/already pending/);
    await peer.reply('{"jsonrpc":"2.0","id":7,"result":1}');
    expect(await first).toBe(1);
  });

  it('rejects when params cannot be serialized, leaving nothing pending', async () => {
    const peer = rawPeer();
    await expect(peer.client.request('m', [10n])).rejects.toBeInstanceOf(TypeError);
    await expect(peer.client.notify('m', [10n])).rejects.toBeInstanceOf(TypeError);
    expect(peer.client.pending).toBe(0);
    await peer.settle();
    expect(peer.received).toEqual([]);
  });

  it('matches answers by id whatever their order', async () => {
    const peer = rawPeer();
    const a = peer.client.request('a');
    const b = peer.client.request('b');
    const c = peer.client.request('c');
    await peer.reply('{"jsonrpc":"2.0","id":3,"result":"c"}');
    await peer.reply('{"jsonrpc":"2.0","id":1,"result":"a"}');
    await peer.reply('{"jsonrpc":"2.0","id":2,"result":"b"}');
    expect(await Promise.all([a, b, c])).toEqual(['a', 'b', 'c']);
  });

  it('settles answers that arrive as a batch of responses', async () => {
    const peer = rawPeer();
    const a = peer.client.request('a');
    const b = peer.client.request('b');
    await peer.reply(
      '[{"jsonrpc":"2.0","id":2,"result":"b"},{"jsonrpc":"2.0","id":1,"result":"a"}]',
    );
    expect(await Promise.all([a, b])).toEqual(['a', 'b']);
  });

  it('does not confuse the string id "1" with the number id 1', async () => {
    const peer = rawPeer();
    const call = peer.client.request('a');
    await peer.reply('{"jsonrpc":"2.0","id":"1","result":"wrong"}');
    await peer.settle();
    expect(peer.errors[0]).toBeInstanceOf(ProtocolError);
    await peer.reply('{"jsonrpc":"2.0","id":1,"result":"right"}');
    expect(await call).toBe('right');
  });
});

describe('error answers', () => {
  it('rejects with the class of the wire code, naming the call', async () => {
    const peer = rawPeer();
    const call = peer.client.request('nope');
    await peer.reply(
      '{"jsonrpc":"2.0","id":1,"error":{"code":-32601,"message":"Method not found"}}',
    );
    const error = await call.catch((e: unknown) => e);
    expect(error).toBeInstanceOf(MethodNotFoundError);
    expect(error).toMatchObject({ code: -32601, method: 'nope', id: 1 });
  });

  it('keeps application codes and data', async () => {
    const peer = rawPeer();
    const call = peer.client.request('divide', [1, 0]);
    await peer.reply(
      '{"jsonrpc":"2.0","id":1,"error":{"code":1001,"message":"Division by zero","data":{"dividend":1}}}',
    );
    const error = await call.catch((e: unknown) => e);
    expect(error).toBeInstanceOf(JsonRpcError);
    expect(error).toMatchObject({ code: 1001, message: 'Division by zero', data: { dividend: 1 } });
  });

  it('fails the only waiting call with an id-null error', async () => {
    const peer = rawPeer();
    const call = peer.client.request('m');
    await peer.reply(
      '{"jsonrpc":"2.0","id":null,"error":{"code":-32602,"message":"Invalid params"}}',
    );
    const error = await call.catch((e: unknown) => e);
    expect(error).toBeInstanceOf(InvalidParamsError);
    expect(error).toMatchObject({ method: 'm', id: 1 });
    expect(peer.errors).toEqual([]);
    expect(peer.client.pending).toBe(0);
  });

  it('fails every waiting call, saying why, on an id-null error it cannot place among several exchanges', async () => {
    const peer = rawPeer();
    const a = peer.client.request('a');
    const b = peer.client.request('b');
    await peer.reply('{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"Parse error"}}');
    const errors = await Promise.all([a, b].map((call) => call.catch((e: unknown) => e)));
    for (const [i, error] of errors.entries()) {
      expect(error).toBeInstanceOf(ProtocolError);
      expect(error).toMatchObject({ method: i === 0 ? 'a' : 'b', id: i + 1 });
      expect((error as Error).message).toMatch(
        /id null \(-32700 Parse error\) that matches no single exchange/,
      );
      expect((error as Error).cause).toMatchObject({ code: -32700 });
    }
    expect(peer.client.pending).toBe(0);
    expect(peer.errors).toHaveLength(1);
    expect(peer.errors[0]).toBeInstanceOf(ProtocolError);
  });

  it('an id-null error leaves calls still queued for an auto-batch alone', async () => {
    const peer = rawPeer({ batch: { wait: 60_000 } });
    const queued = peer.client.request('later');
    await peer.reply('{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"Parse error"}}');
    await peer.settle();
    expect(peer.client.pending).toBe(1);
    await peer.client.close();
    await expect(queued).rejects.toMatchObject({ code: 'CONNECTION_CLOSED' });
  });

  it('fails every call of the one waiting batch with an id-null error', async () => {
    const peer = rawPeer();
    const results = peer.client.batch((b) => [b.request('a'), b.request('b'), b.notify('n')]);
    await peer.reply(
      '{"jsonrpc":"2.0","id":null,"error":{"code":-32003,"message":"Batch too large"}}',
    );
    const [a, b] = await results;
    expect(a.ok).toBe(false);
    expect(b.ok).toBe(false);
    if (!a.ok && !b.ok) {
      expect(a.error).toMatchObject({ code: -32003, method: 'a', id: 1 });
      expect(b.error).toMatchObject({ code: -32003, method: 'b', id: 2 });
    }
    expect(peer.client.pending).toBe(0);
  });

  it('places an id-null error in a batch answer by the other members of that answer', async () => {
    const peer = rawPeer();
    const lone = peer.client.request('lone');
    const results = peer.client.batch((b) => [b.request('a'), b.request('b'), b.request('c')]);
    await peer.reply(
      '[{"jsonrpc":"2.0","id":null,"error":{"code":-32600,"message":"Invalid Request"}},' +
        '{"jsonrpc":"2.0","id":2,"result":"a"},{"jsonrpc":"2.0","id":4,"result":"c"}]',
    );
    const [a, b, c] = await results;
    expect(a).toEqual({ ok: true, value: 'a' });
    expect(b.ok).toBe(false);
    if (!b.ok) expect(b.error).toMatchObject({ code: -32600, method: 'b', id: 3 });
    expect(c).toEqual({ ok: true, value: 'c' });
    // The lone request of another exchange is untouched.
    expect(peer.client.pending).toBe(1);
    await peer.reply('{"jsonrpc":"2.0","id":1,"result":"lone"}');
    expect(await lone).toBe('lone');
  });

  it('reports an id-null error when nothing waits', async () => {
    const peer = rawPeer();
    await peer.reply('{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"Parse error"}}');
    await peer.settle();
    expect(peer.errors[0]).toBeInstanceOf(ProtocolError);
  });
});

describe('malformed and unexpected answers', () => {
  const cases: Array<[string, string]> = [
    [
      'both result and error',
      '{"jsonrpc":"2.0","id":1,"result":1,"error":{"code":1,"message":"x"}}',
    ],
    ['neither result nor error', '{"jsonrpc":"2.0","id":1}'],
    ['a non-integer code', '{"jsonrpc":"2.0","id":1,"error":{"code":1.5,"message":"x"}}'],
    ['a string code', '{"jsonrpc":"2.0","id":1,"error":{"code":"-32600","message":"x"}}'],
    ['a missing message', '{"jsonrpc":"2.0","id":1,"error":{"code":-32600}}'],
    ['a wrong version', '{"jsonrpc":"1.0","id":1,"result":1}'],
    ['no version', '{"id":1,"result":1}'],
  ];
  for (const [name, text] of cases) {
    it(`rejects the call it names and reports: ${name}`, async () => {
      const peer = rawPeer();
      const call = peer.client.request('m');
      await peer.reply(text);
      const error = await call.catch((e: unknown) => e);
      expect(error).toBeInstanceOf(ProtocolError);
      expect(error).toMatchObject({ code: 'PROTOCOL_ERROR', method: 'm', id: 1 });
      expect(peer.errors).toHaveLength(1);
      expect(peer.errors[0]).toBeInstanceOf(ProtocolError);
      expect(peer.client.pending).toBe(0);
    });
  }

  it('reports garbage text and keeps working', async () => {
    const peer = rawPeer();
    const call = peer.client.request('m');
    for (const garbage of [
      'not json',
      '{"jsonrpc":"2.0",',
      '',
      '\u0000\u0001',
      '[]',
      '42',
      '"x"',
      'null',
    ]) {
      await peer.reply(garbage);
    }
    await peer.settle();
    expect(peer.errors.length).toBe(8);
    for (const error of peer.errors) expect(error).toBeInstanceOf(ProtocolError);
    expect(peer.client.pending).toBe(1);
    await peer.reply('{"jsonrpc":"2.0","id":1,"result":"still fine"}');
    expect(await call).toBe('still fine');
  });

  it('reports an answer for an unknown id', async () => {
    const peer = rawPeer();
    await peer.reply('{"jsonrpc":"2.0","id":99,"result":1}');
    await peer.settle();
    expect(peer.errors).toHaveLength(1);
    expect(peer.errors[0]!.message).toMatch(/unknown or already answered id 99/);
  });

  it('keeps the first of duplicate answers and reports the second', async () => {
    const peer = rawPeer();
    const call = peer.client.request('m');
    await peer.reply('{"jsonrpc":"2.0","id":1,"result":"first"}');
    await peer.reply('{"jsonrpc":"2.0","id":1,"result":"second"}');
    expect(await call).toBe('first');
    await peer.settle();
    expect(peer.errors).toHaveLength(1);
    expect(peer.errors[0]).toBeInstanceOf(ProtocolError);
  });

  it('survives an onError hook that throws', async () => {
    const peer = rawPeer({
      onError: () => {
        throw new Error('hook failed');
      },
    });
    await peer.reply('garbage');
    const call = peer.client.request('m');
    await peer.reply('{"jsonrpc":"2.0","id":1,"result":1}');
    expect(await call).toBe(1);
  });

  it('survives a malformed member inside a batch answer', async () => {
    const peer = rawPeer();
    const a = peer.client.request('a');
    const b = peer.client.request('b');
    await peer.reply('[{"jsonrpc":"2.0","id":1,"result":"a"},{"jsonrpc":"2.0","id":2},5]');
    expect(await a).toBe('a');
    await expect(b).rejects.toBeInstanceOf(ProtocolError);
    expect(peer.errors).toHaveLength(2);
  });
});

describe('closing', () => {
  it('rejects every waiting call with ConnectionClosedError naming the call', async () => {
    const peer = rawPeer();
    const a = peer.client.request('alpha');
    const b = peer.client.request('beta', [1]);
    await peer.client.close();
    for (const [call, method, id] of [
      [a, 'alpha', 1],
      [b, 'beta', 2],
    ] as const) {
      const error = await call.catch((e: unknown) => e);
      expect(error).toBeInstanceOf(ConnectionClosedError);
      expect(error).toMatchObject({ code: 'CONNECTION_CLOSED', method, id });
      expect((error as Error).message).toContain(method);
    }
    expect(peer.client.pending).toBe(0);
    await peer.client.closed;
  });

  it('rejects at once after close, sending nothing', async () => {
    const peer = rawPeer();
    await peer.client.close();
    await expect(peer.client.request('m')).rejects.toMatchObject({
      code: 'CONNECTION_CLOSED',
      method: 'm',
    });
    await expect(peer.client.notify('n')).rejects.toBeInstanceOf(ConnectionClosedError);
    await expect(peer.client.batch((b) => [b.request('x')])).rejects.toBeInstanceOf(
      ConnectionClosedError,
    );
    await peer.client.close(); // idempotent
    await peer.settle();
    expect(peer.received).toEqual([]);
  });

  it('fails waiting calls when the other side closes the transport', async () => {
    const peer = rawPeer();
    const call = peer.client.request('m');
    await peer.next();
    await peer.transport.close(new Error('gone'));
    const error = await call.catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ConnectionClosedError);
    expect((error as Error).cause).toBeInstanceOf(Error);
    await peer.client.closed;
    await expect(peer.client.request('m')).rejects.toBeInstanceOf(ConnectionClosedError);
  });
});
