import {
  defaultProfile,
  defineContract,
  JsonRpcError,
  type JsonRpcId,
  jsonrpc1,
  losslessNumbers,
  method,
  ProtocolError,
  superjsonCodec,
  TimeoutError,
} from '@jsonrpc-kit/core';
import * as v from 'valibot';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { rawPeer } from '../test/raw-peer.js';
import type { createClient } from './client.js';
import { DEFAULT_CALL_TIMEOUT } from './defaults.js';
import { responseChecks } from './response-checks.js';

afterEach(() => {
  vi.useRealTimers();
});

/** A superjson-shaped codec that knows Dates: `{ json, meta: 'Date' }` on the wire. */
const dateCodec = superjsonCodec({
  serialize: (value: unknown) =>
    value instanceof Date ? { json: value.toISOString(), meta: 'Date' } : { json: value },
  deserialize: (payload: { json: unknown; meta?: unknown }) =>
    payload.meta === 'Date' ? new Date(payload.json as string) : payload.json,
});

describe('codec', () => {
  it('losslessNumbers: BigInt params go out as plain numbers, big results come back exact', async () => {
    const peer = rawPeer({ codec: losslessNumbers });
    const sum = peer.client.request('big_add', [2n ** 64n, 1]);
    expect(await peer.next()).toBe(
      '{"jsonrpc":"2.0","id":1,"method":"big_add","params":[18446744073709551616,1]}',
    );
    await peer.reply('{"jsonrpc":"2.0","id":1,"result":18446744073709551617}');
    expect(await sum).toBe(18446744073709551617n);
  });

  it('without a codec BigInt params are refused locally, as before', async () => {
    const peer = rawPeer();
    await expect(peer.client.request('m', [1n])).rejects.toThrow(TypeError);
  });

  it('a contract validates the decoded result', async () => {
    const peer = rawPeer({ codec: dateCodec });
    const api = peer.client.contract(
      defineContract({ now: method({ params: v.tuple([]), result: v.date() }) }),
    );
    const now = api.now();
    expect(JSON.parse(await peer.next())).toMatchObject({ id: 1, method: 'now' });
    await peer.reply(
      '{"jsonrpc":"2.0","id":1,"result":{"json":"2020-01-01T00:00:00.000Z","meta":"Date"}}',
    );
    expect(await now).toEqual(new Date('2020-01-01T00:00:00.000Z'));
  });
});

describe("codec on the client's own handlers", () => {
  it('decodes the params of incoming calls and notifications, and writes results with the codec', async () => {
    const seen: unknown[] = [];
    const peer = rawPeer({
      codec: losslessNumbers,
      onRequest: (request) => {
        seen.push(request.params);
        return [(request.params as bigint[])[0]! + 1n];
      },
      onNotification: (notification) => {
        seen.push(notification.params);
      },
    });
    await peer.reply('{"jsonrpc":"2.0","id":7,"method":"next","params":[18446744073709551616]}');
    expect(await peer.next()).toBe('{"jsonrpc":"2.0","id":7,"result":[18446744073709551617]}');
    await peer.reply('{"jsonrpc":"2.0","method":"seen","params":[18446744073709551616]}');
    expect(seen).toEqual([[2n ** 64n], [2n ** 64n]]);
  });

  it("answers with the codec's encode (superjson), and decodes params before onRequest", async () => {
    const peer = rawPeer({
      codec: dateCodec,
      onRequest: (request) => ((request.params as number[])[0] === 1 ? new Date(0) : null),
    });
    await peer.reply('{"jsonrpc":"2.0","id":1,"method":"when","params":{"json":[1]}}');
    expect(await peer.next()).toBe(
      '{"jsonrpc":"2.0","id":1,"result":{"json":"1970-01-01T00:00:00.000Z","meta":"Date"}}',
    );
  });
});

describe("JSON-RPC 1.0 on the client's own handlers", () => {
  it('answers a 1.0 request in 1.0 form, results and errors', async () => {
    const peer = rawPeer({
      jsonrpc1,
      onRequest: (request) => {
        if (request.method === 'fail') throw new JsonRpcError(5, 'no');
        return 'pong';
      },
    });
    await peer.reply('{"id":3,"method":"ping","params":[]}');
    expect(await peer.next()).toBe('{"id":3,"result":"pong","error":null}');
    await peer.reply('{"id":4,"method":"fail","params":[]}');
    expect(await peer.next()).toBe('{"id":4,"result":null,"error":{"code":5,"message":"no"}}');
  });
});

describe('JSON-RPC 1.0', () => {
  it('sends requests without jsonrpc, notifications with id null, and reads 1.0 answers', async () => {
    const peer = rawPeer({ jsonrpc1 });
    const ok = peer.client.request('echo', ['hi']);
    expect(await peer.next()).toBe('{"id":1,"method":"echo","params":["hi"]}');
    await peer.reply('{"id":1,"result":["hi"],"error":null}');
    expect(await ok).toEqual(['hi']);
    const failed = peer.client.request('fail');
    expect(await peer.next()).toBe('{"id":2,"method":"fail","params":[]}');
    await peer.reply('{"id":2,"result":null,"error":{"code":1,"message":"no"}}');
    await expect(failed).rejects.toMatchObject({ code: 1, message: 'no' });
    await peer.client.notify('log', ['x']);
    expect(await peer.next()).toBe('{"id":null,"method":"log","params":["x"]}');
  });

  it('refuses params by name locally', async () => {
    const peer = rawPeer({ jsonrpc1 });
    await expect(peer.client.request('m', { a: 1 })).rejects.toThrow(/by position only/);
  });

  it('has no batches: batch() rejects and the batch option throws, nothing sent', async () => {
    const peer = rawPeer({ jsonrpc1 });
    await expect(peer.client.batch((b) => [b.request('a', [])])).rejects.toThrow(
      /JSON-RPC 1.0 has no batches/,
    );
    expect(() => rawPeer({ jsonrpc1, batch: true })).toThrow(RangeError);
    const next = peer.client.request('after', []);
    expect(await peer.next()).toBe('{"id":1,"method":"after","params":[]}');
    await peer.reply('{"id":1,"result":1,"error":null}');
    expect(await next).toBe(1);
  });

  it('sends the cancel notice of a call that gave up as a 1.0 notification', async () => {
    // 1.0 params go by position: a cancellation profile for a 1.0 peer puts the id in an array.
    const cancellation = {
      method: 'cancel',
      code: -32800,
      toParams: (id: JsonRpcId) => [id],
      fromParams: (params: unknown) => (params as JsonRpcId[] | undefined)?.[0],
    };
    const peer = rawPeer({
      jsonrpc1,
      sendCancel: true,
      profile: { ...defaultProfile, name: 'legacy', cancellation },
    });
    const controller = new AbortController();
    const call = peer.client.request('slow', [], { signal: controller.signal });
    expect(await peer.next()).toBe('{"id":1,"method":"slow","params":[]}');
    controller.abort();
    await expect(call).rejects.toThrow();
    expect(await peer.next()).toBe('{"id":null,"method":"cancel","params":[1]}');
    // The default profile's notice has params by name: refused by the 1.0 writer, and reported.
    const named = rawPeer({ jsonrpc1, sendCancel: true });
    const stop = new AbortController();
    const other = named.client.request('slow', [], { signal: stop.signal });
    await named.next();
    stop.abort();
    await expect(other).rejects.toThrow();
    expect(named.errors.map((e) => e.message)).toEqual([expect.stringMatching(/by position only/)]);
  });
});

describe('response checks', () => {
  it('strict by default: "error": null beside result fails the call', async () => {
    const peer = rawPeer();
    const call = peer.client.request('m');
    await peer.reply('{"jsonrpc":"2.0","id":1,"result":2,"error":null}');
    await expect(call).rejects.toBeInstanceOf(ProtocolError);
  });

  it('one option makes such a peer usable', async () => {
    const peer = rawPeer({
      responseChecks: responseChecks({ requireExclusiveResultOrError: false }),
    });
    const call = peer.client.request('m');
    await peer.reply('{"jsonrpc":"2.0","id":1,"result":2,"error":null}');
    expect(await call).toBe(2);
  });

  it('a tightened rule fails the call it answers with a ProtocolError', async () => {
    const peer = rawPeer({ responseChecks: responseChecks({ errorCodePolicy: 'standard' }) });
    const call = peer.client.request('m');
    await peer.reply('{"jsonrpc":"2.0","id":1,"error":{"code":1001,"message":"app"}}');
    await expect(call).rejects.toBeInstanceOf(ProtocolError);
    const dup = rawPeer({ responseChecks: responseChecks({ rejectDuplicateMembers: true }) });
    const second = dup.client.request('m');
    await dup.reply('{"jsonrpc":"2.0","id":1,"result":1,"result":2}');
    await expect(second).rejects.toBeInstanceOf(ProtocolError);
  });

  it('the ProtocolError names the broken rule in its message and as `rule`', async () => {
    const peer = rawPeer();
    const call = peer.client.request('ping');
    await peer.reply('{"jsonrpc":"2.0","id":1,"result":2,"error":{"code":1,"message":"x"}}');
    const error = (await call.catch((e: unknown) => e)) as ProtocolError;
    expect(error).toBeInstanceOf(ProtocolError);
    expect(error.rule).toBe('requireExclusiveResultOrError');
    expect(error.message).toBe(
      'Received an invalid answer: it breaks requireExclusiveResultOrError (ping, id 1)',
    );
    const policy = rawPeer({ responseChecks: responseChecks({ errorCodePolicy: 'standard' }) });
    const second = policy.client.request('m');
    await policy.reply('{"jsonrpc":"2.0","id":1,"error":{"code":1001,"message":"app"}}');
    const refused = (await second.catch((e: unknown) => e)) as ProtocolError;
    expect(refused.rule).toBe('errorCodePolicy');
    expect(refused.message).toBe(
      'Received an invalid answer: error code 1001 outside the error-code policy (errorCodePolicy) (m, id 1)',
    );
  });
});

describe('default timeout', () => {
  it('is 30 s: a call never waits forever unless asked to', async () => {
    expect(DEFAULT_CALL_TIMEOUT).toBe(30_000);
    vi.useFakeTimers();
    const peer = rawPeer();
    const call = peer.client.request('slow').catch((e: unknown) => e);
    // A safety net checked every 3 s, not a timer per call: the call fails 30 to 33 s later.
    await vi.advanceTimersByTimeAsync(29_999);
    expect(peer.client.pending).toBe(1);
    await vi.advanceTimersByTimeAsync(3_001);
    expect(await call).toBeInstanceOf(TimeoutError);
    expect(await call).toMatchObject({ timeout: 30_000, method: 'slow' });
    await peer.client.close();
  });

  it('0 and Infinity opt out, per client and per call', async () => {
    vi.useFakeTimers();
    const forever = rawPeer({ callTimeout: 0 });
    void forever.client.request('a').catch(() => {});
    void forever.client
      .request('b', undefined, { timeout: Number.POSITIVE_INFINITY })
      .catch(() => {});
    const peer = rawPeer();
    void peer.client.request('c', undefined, { timeout: 0 }).catch(() => {});
    await vi.advanceTimersByTimeAsync(3_600_000);
    expect(forever.client.pending).toBe(2);
    expect(peer.client.pending).toBe(1);
    await forever.client.close();
    await peer.client.close();
  });
});

describe('subscriptions', () => {
  /** Subscribes to `ticks` on a raw peer and answers with the id `s1`. */
  async function subscribed(peer: ReturnType<typeof rawPeer>, items: unknown[]) {
    const sub = peer.client.subscribe('ticks', undefined, { onItem: (i) => items.push(i) });
    const { id } = JSON.parse(await peer.next()) as { id: number };
    await peer.reply(`{"jsonrpc":"2.0","id":${id},"result":"s1"}`);
    expect(await sub.ready).toBe('s1');
    return sub;
  }

  it('are not cut by the default deadline: a subscription is not a call', async () => {
    const peer = rawPeer();
    const items: unknown[] = [];
    const sub = await subscribed(peer, items);
    vi.useFakeTimers();
    await vi.advanceTimersByTimeAsync(DEFAULT_CALL_TIMEOUT * 10);
    expect(peer.client.pending).toBe(0);
    await peer.reply(
      '{"jsonrpc":"2.0","method":"subscription","params":{"subscription":"s1","item":1}}',
    );
    await vi.advanceTimersByTimeAsync(0);
    expect(items).toEqual([1]);
    expect(peer.errors).toEqual([]);
    vi.useRealTimers();
    void sub.unsubscribe();
    await peer.client.close();
  });

  it("items are decoded by the client's codec, before the item schema", async () => {
    const peer = rawPeer({ codec: dateCodec });
    const items: unknown[] = [];
    await subscribed(peer, items);
    await peer.reply(
      '{"jsonrpc":"2.0","method":"subscription","params":{"subscription":"s1","item":{"json":"2020-01-01T00:00:00.000Z","meta":"Date"}}}',
    );
    await peer.settle();
    expect(items).toEqual([new Date('2020-01-01T00:00:00.000Z')]);
    await peer.client.close();
  });
});

describe('local input checks: refused with a clear error, nothing sent', () => {
  it.each([
    ['a blank method name', (c: ReturnType<typeof createClient>) => c.request('  ')],
    ['an empty method name on notify', (c: ReturnType<typeof createClient>) => c.notify('')],
    ['primitive params', (c: ReturnType<typeof createClient>) => c.request('m', 5 as never)],
    ['null params', (c: ReturnType<typeof createClient>) => c.notify('m', null as never)],
    [
      'primitive params in a batch',
      (c: ReturnType<typeof createClient>) => c.batch((b) => [b.request('m', 'x' as never)]),
    ],
  ])('%s', async (_name, act) => {
    const peer = rawPeer();
    await expect(act(peer.client)).rejects.toThrow(TypeError);
    await peer.settle();
    expect(peer.received).toEqual([]);
    expect(peer.client.pending).toBe(0);
  });

  it.each([[null], [undefined], [{}], [Number.NaN], [true]])(
    'an id %j from generateId',
    async (id) => {
      const peer = rawPeer({ generateId: () => id as never });
      await expect(peer.client.request('m')).rejects.toThrow(
        /generateId must return a string or a finite number/,
      );
      await peer.settle();
      expect(peer.received).toEqual([]);
    },
  );

  it('an onRequest handler that throws a code that is not an integer is answered -32603', async () => {
    const peer = rawPeer({
      onRequest: () => {
        throw new JsonRpcError(2.5, 'half');
      },
    });
    await peer.reply('{"jsonrpc":"2.0","id":9,"method":"ask"}');
    expect(await peer.next()).toBe(
      '{"jsonrpc":"2.0","id":9,"error":{"code":-32603,"message":"Internal error"}}',
    );
  });
});
