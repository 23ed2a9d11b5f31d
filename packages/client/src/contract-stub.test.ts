import { defineContract, method, notification, ProtocolError } from '@jsonrpc-kit/core';
import * as v from 'valibot';
import { describe, expect, it } from 'vitest';
import { rawPeer } from '../test/raw-peer.js';
import { ResultValidationError } from './index.js';

const calculator = defineContract({
  add: method({ params: v.tuple([v.number(), v.number()]), result: v.number() }),
  subtract: method({
    params: v.tuple([v.number(), v.number()]),
    paramNames: ['minuend', 'subtrahend'],
    result: v.number(),
  }),
  divide: method({
    params: v.object({ a: v.number(), b: v.number() }),
    result: v.pipe(
      v.string(),
      v.transform((s) => Number(s)),
    ),
  }),
  raw: method(),
  log: notification({ params: v.object({ message: v.string() }) }),
});

describe('client.use', () => {
  it('sends tuple params by position and object params by name', async () => {
    const peer = rawPeer();
    const calc = peer.client.contract(calculator);
    const sum = calc.add(1, 2);
    expect(await peer.next()).toBe('{"jsonrpc":"2.0","id":1,"method":"add","params":[1,2]}');
    await peer.reply('{"jsonrpc":"2.0","id":1,"result":3}');
    expect(await sum).toBe(3);

    const quotient = calc.divide({ a: 1, b: 2 });
    expect(await peer.next()).toBe(
      '{"jsonrpc":"2.0","id":2,"method":"divide","params":{"a":1,"b":2}}',
    );
    await peer.reply('{"jsonrpc":"2.0","id":2,"result":"0.5"}');
    expect(await quotient).toBe(0.5); // the result schema's output

    const named = calc.subtract(42, 23);
    expect(await peer.next()).toBe(
      '{"jsonrpc":"2.0","id":3,"method":"subtract","params":{"minuend":42,"subtrahend":23}}',
    );
    await peer.reply('{"jsonrpc":"2.0","id":3,"result":19}');
    expect(await named).toBe(19);
  });

  it('sends object params in paramNames order with byPosition, and a prefix', async () => {
    const peer = rawPeer();
    const calc = peer.client.contract(calculator, { params: 'byPosition', prefix: 'calc.' });
    void calc.divide({ b: 2, a: 1 }).catch(() => {});
    expect(await peer.next()).toBe(
      '{"jsonrpc":"2.0","id":1,"method":"calc.divide","params":[1,2]}',
    );
    void calc.subtract(42, 23).catch(() => {});
    expect(await peer.next()).toBe(
      '{"jsonrpc":"2.0","id":2,"method":"calc.subtract","params":[42,23]}',
    );
    await calc.log({ message: 'hi' });
    expect(await peer.next()).toBe('{"jsonrpc":"2.0","method":"calc.log","params":["hi"]}');
    await peer.client.close();
  });

  it('sends notifications as notifications and untyped params as given', async () => {
    const peer = rawPeer();
    const calc = peer.client.contract(calculator);
    await calc.log({ message: 'hi' });
    expect(await peer.next()).toBe('{"jsonrpc":"2.0","method":"log","params":{"message":"hi"}}');
    const raw = calc.raw({ any: 'thing' });
    expect(await peer.next()).toBe(
      '{"jsonrpc":"2.0","id":1,"method":"raw","params":{"any":"thing"}}',
    );
    await peer.reply('{"jsonrpc":"2.0","id":1,"result":{"free":true}}');
    expect(await raw).toEqual({ free: true });
    void calc.raw().catch(() => {});
    expect(await peer.next()).toBe('{"jsonrpc":"2.0","id":2,"method":"raw"}');
    await peer.client.close();
  });

  it('rejects a result that breaks the schema with ResultValidationError', async () => {
    const peer = rawPeer();
    const calc = peer.client.contract(calculator);
    const sum = calc.add(1, 2);
    await peer.reply('{"jsonrpc":"2.0","id":1,"result":"three"}');
    const error = await sum.catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ResultValidationError);
    expect(error).toBeInstanceOf(ProtocolError);
    expect(error).toMatchObject({
      code: 'PROTOCOL_ERROR',
      method: 'add',
      id: 1,
      received: 'three',
    });
    expect((error as ResultValidationError).issues).toEqual([
      { path: '', message: expect.stringContaining('number') },
    ]);
  });

  it('validates with async schemas', async () => {
    const peer = rawPeer();
    const api = peer.client.contract(
      defineContract({
        check: method({
          result: v.pipeAsync(
            v.number(),
            v.checkAsync(async (n) => n > 0, 'must be positive'),
          ),
        }),
      }),
    );
    const good = api.check();
    await peer.reply('{"jsonrpc":"2.0","id":1,"result":5}');
    expect(await good).toBe(5);
    const bad = api.check();
    await peer.reply('{"jsonrpc":"2.0","id":2,"result":-5}');
    await expect(bad).rejects.toThrow(/must be positive/);
  });

  it('refuses an unknown params style', () => {
    const peer = rawPeer();
    expect(() => peer.client.contract(calculator, { params: 'sideways' as 'byName' })).toThrow(
      TypeError,
    );
  });
});

describe('client.use: arguments left out', () => {
  const eth = defineContract({
    eth_chainId: method({ params: v.tuple([]), result: v.string() }),
    getBalance: method({
      params: v.tuple([v.string(), v.optional(v.string(), 'latest')]),
      result: v.string(),
    }),
    getBalanceNamed: method({
      params: v.tuple([v.string(), v.optional(v.string())]),
      paramNames: ['address', 'block'],
      result: v.string(),
    }),
    list: method({ params: v.object({ cursor: v.optional(v.string()) }) }),
    find: method({ params: v.object({ q: v.string(), limit: v.optional(v.number()) }) }),
  });

  it('sends no params for a call without arguments', async () => {
    const peer = rawPeer();
    const api = peer.client.contract(eth);
    void api.eth_chainId().catch(() => {});
    void api.list().catch(() => {});
    void api.getBalanceNamed(undefined as never).catch(() => {});
    expect(peer.received).toEqual([]);
    await peer.settle();
    expect(peer.received).toEqual([
      '{"jsonrpc":"2.0","id":1,"method":"eth_chainId"}',
      '{"jsonrpc":"2.0","id":2,"method":"list"}',
      '{"jsonrpc":"2.0","id":3,"method":"getBalanceNamed"}',
    ]);
    await peer.client.close();
  });

  it('drops trailing undefined arguments and undefined members, never sending null', async () => {
    const peer = rawPeer();
    const api = peer.client.contract(eth);
    const byPosition = peer.client.contract(eth, { params: 'byPosition' });
    void api.getBalance('0xa', undefined).catch(() => {});
    void api.getBalance('0xa').catch(() => {});
    void api.getBalanceNamed('0xa', undefined).catch(() => {});
    void api.find({ q: 'x', limit: undefined }).catch(() => {});
    void byPosition.find({ q: 'x', limit: undefined }).catch(() => {});
    void byPosition.getBalanceNamed('0xa', undefined).catch(() => {});
    await peer.settle();
    expect(peer.received).toEqual([
      '{"jsonrpc":"2.0","id":1,"method":"getBalance","params":["0xa"]}',
      '{"jsonrpc":"2.0","id":2,"method":"getBalance","params":["0xa"]}',
      '{"jsonrpc":"2.0","id":3,"method":"getBalanceNamed","params":{"address":"0xa"}}',
      '{"jsonrpc":"2.0","id":4,"method":"find","params":{"q":"x"}}',
      '{"jsonrpc":"2.0","id":5,"method":"find","params":["x"]}',
      '{"jsonrpc":"2.0","id":6,"method":"getBalanceNamed","params":["0xa"]}',
    ]);
    await peer.client.close();
  });

  it('does the same through client.stub()', async () => {
    interface Api {
      getBalance(address: string, block?: string): string;
    }
    const peer = rawPeer();
    const api = peer.client.stub<Api>();
    void api.getBalance('0xa', undefined).catch(() => {});
    await peer.settle();
    expect(peer.received).toEqual([
      '{"jsonrpc":"2.0","id":1,"method":"getBalance","params":["0xa"]}',
    ]);
    await peer.client.close();
  });
});

describe('client.stub', () => {
  interface Api {
    add(a: number, b: number): number;
    now(): Promise<string>;
  }

  it('sends arguments by position and no params without arguments', async () => {
    const peer = rawPeer();
    const api = peer.client.stub<Api>({ prefix: 'math.' });
    const sum = api.add(1, 2);
    expect(await peer.next()).toBe('{"jsonrpc":"2.0","id":1,"method":"math.add","params":[1,2]}');
    await peer.reply('{"jsonrpc":"2.0","id":1,"result":3}');
    expect(await sum).toBe(3);
    void api.now().catch(() => {});
    expect(await peer.next()).toBe('{"jsonrpc":"2.0","id":2,"method":"math.now"}');
    expect(api.add).toBe(api.add);
    await peer.client.close();
  });

  it('is not thenable, so it can be awaited or returned from async code', async () => {
    const peer = rawPeer();
    const api = peer.client.stub<Api>();
    expect((api as unknown as { then?: unknown }).then).toBeUndefined();
    expect(await Promise.resolve(api)).toBe(api);
    await peer.settle();
    expect(peer.received).toEqual([]);
  });
});
