import { defineContract, method, notification } from '@jsonrpc-kit/core';
import * as v from 'valibot';
import { describe, expect, it } from 'vitest';
import { rawPeer } from '../test/raw-peer.js';

const calculator = defineContract(
  {
    add: method({ params: v.tuple([v.number(), v.number()]), result: v.number() }),
    log: notification({ params: v.object({ message: v.string() }) }),
  },
  { name: 'Calculator' },
);

describe("client.contract's naming", () => {
  it('"qualified" sends Service.method, after the prefix, as implement() registers it', async () => {
    const peer = rawPeer();
    const calc = peer.client.contract(calculator, { naming: 'qualified' });
    const sum = calc.add(1, 2);
    expect(await peer.next()).toBe(
      '{"jsonrpc":"2.0","id":1,"method":"Calculator.add","params":[1,2]}',
    );
    await peer.reply('{"jsonrpc":"2.0","id":1,"result":3}');
    expect(await sum).toBe(3);
    await calc.log({ message: 'hi' });
    expect(await peer.next()).toBe(
      '{"jsonrpc":"2.0","method":"Calculator.log","params":{"message":"hi"}}',
    );
    const prefixed = peer.client.contract(calculator, { prefix: 'v1.', naming: 'qualified' });
    void prefixed.add(1, 2).catch(() => {});
    expect(await peer.next()).toBe(
      '{"jsonrpc":"2.0","id":2,"method":"v1.Calculator.add","params":[1,2]}',
    );
    const plain = peer.client.contract(calculator, { naming: 'plain' });
    void plain.add(1, 2).catch(() => {});
    expect(await peer.next()).toBe('{"jsonrpc":"2.0","id":3,"method":"add","params":[1,2]}');
    await peer.client.close();
  });

  it('"qualified" refuses an unnamed contract, and naming takes only its two values', async () => {
    const peer = rawPeer();
    const unnamed = defineContract({ add: method() });
    expect(() => peer.client.contract(unnamed, { naming: 'qualified' })).toThrow(
      new TypeError('naming "qualified" needs a named contract: defineContract(entries, { name })'),
    );
    expect(() => peer.client.contract(unnamed, { naming: 'full' as never })).toThrow(
      new TypeError('naming must be "plain" or "qualified", got full'),
    );
    await peer.client.close();
  });
});
