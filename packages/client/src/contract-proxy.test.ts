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
    const calc = peer.client.use(calculator);
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
    const calc = peer.client.use(calculator, { params: 'byPosition', prefix: 'calc.' });
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
    const calc = peer.client.use(calculator);
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
    const calc = peer.client.use(calculator);
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
    const api = peer.client.use(
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
    expect(() => peer.client.use(calculator, { params: 'sideways' as 'byName' })).toThrow(
      TypeError,
    );
  });
});

describe('client.proxy', () => {
  interface Api {
    add(a: number, b: number): number;
    now(): Promise<string>;
  }

  it('sends arguments by position and no params without arguments', async () => {
    const peer = rawPeer();
    const api = peer.client.proxy<Api>({ prefix: 'math.' });
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
    const api = peer.client.proxy<Api>();
    expect((api as unknown as { then?: unknown }).then).toBeUndefined();
    expect(await Promise.resolve(api)).toBe(api);
    await peer.settle();
    expect(peer.received).toEqual([]);
  });
});
