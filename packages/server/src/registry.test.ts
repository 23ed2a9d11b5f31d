import { defineContract, method, notification } from '@jsonrpc-kit/core';
import * as v from 'valibot';
import { describe, expect, it, vi } from 'vitest';
import { createServer } from './server.js';

const req = (name: string, params: unknown = [], id = 1): string =>
  JSON.stringify({ jsonrpc: '2.0', id, method: name, params });

const calculator = defineContract({
  add: method({ params: v.tuple([v.number(), v.number()]), result: v.number() }),
  divide: method({
    params: v.object({ a: v.number(), b: v.number() }),
    result: v.number(),
    description: 'a / b',
  }),
  log: notification({ params: v.object({ message: v.string() }) }),
});

describe('registration', () => {
  it('rejects duplicates, rpc. names, empty names and non-functions', () => {
    const server = createServer();
    server.method('a', () => 1);
    expect(() => server.method('a', () => 2)).toThrow(/already registered/);
    expect(() => server.notification('a', () => {})).toThrow(/already registered/);
    expect(() => server.method('rpc.discover', () => 1)).toThrow(/reserved/);
    expect(() => server.notification('rpc.x', () => {})).toThrow(/reserved/);
    expect(() => server.method('', () => 1)).toThrow(TypeError);
    expect(() => server.method('b', 5 as never)).toThrow(TypeError);
    expect(() => server.method('c', () => 1, { timeout: -1 })).toThrow(TypeError);
  });

  it('refuses repeated, empty and non-string parameter names, naming the method', () => {
    const server = createServer();
    const handler = (): number => 1;
    expect(() => server.method('m', handler, { paramNames: ['a', 'a'] })).toThrow(
      new TypeError('Method "m": parameter name "a" is repeated'),
    );
    expect(() => server.method('m', handler, { paramNames: [''] })).toThrow(
      new TypeError('Method "m": every parameter name must be a non-empty string'),
    );
    expect(() => server.notification('n', () => {}, { paramNames: [1 as never] })).toThrow(
      /Method "n": every parameter name/,
    );
    expect(() => server.registerSystem('rpc.x', handler, { paramNames: ['b', 'b'] })).toThrow(
      /Method "rpc.x": parameter name "b" is repeated/,
    );
    // Contracts refuse them where they are defined, and implement() where they are registered.
    expect(() =>
      defineContract({ add: method({ params: v.tuple([v.number()]), paramNames: ['x', 'x'] }) }),
    ).toThrow(new TypeError('Contract entry "add": parameter name "x" is repeated'));
    const unchecked = {
      add: method({ params: v.tuple([v.number()]), paramNames: ['', 'y'] }),
    };
    expect(() => server.implement(unchecked, { add: handler }, { prefix: 'calc.' })).toThrow(
      /Method "calc.add": every parameter name must be a non-empty string/,
    );
    expect(server.methods()).toEqual([]);
  });

  it('registerSystem takes only rpc. names, and they dispatch', async () => {
    const server = createServer();
    expect(() => server.registerSystem('discover', () => 1)).toThrow(/must start with "rpc."/);
    const dispose = server.registerSystem('rpc.discover', () => ({ openrpc: '1.3.2' }));
    expect(await server.handle(req('rpc.discover'))).toBe(
      '{"jsonrpc":"2.0","id":1,"result":{"openrpc":"1.3.2"}}',
    );
    expect(JSON.parse((await server.handle(req('rpc.other')))!).error.code).toBe(-32601);
    dispose();
    expect(JSON.parse((await server.handle(req('rpc.discover')))!).error.code).toBe(-32601);
  });

  it('disposers remove exactly what they added', async () => {
    const server = createServer();
    const dispose = server.method('a', () => 1);
    dispose();
    expect(JSON.parse((await server.handle(req('a')))!).error.code).toBe(-32601);
    server.method('a', () => 2);
    dispose(); // a second call must not remove the new registration
    expect(await server.handle(req('a'))).toBe('{"jsonrpc":"2.0","id":1,"result":2}');
  });

  it('lists the registry for OpenRPC', () => {
    const server = createServer();
    const schema = v.object({ x: v.number() });
    server.method('m', () => 1, { params: schema, description: 'doc' });
    server.notification('n', () => {}, { paramNames: ['a'] });
    server.registerSystem('rpc.discover', () => 1);
    expect(server.methods()).toEqual([
      {
        name: 'm',
        kind: 'method',
        params: schema,
        result: undefined,
        paramNames: ['x'],
        description: 'doc',
        system: false,
      },
      {
        name: 'n',
        kind: 'notification',
        params: undefined,
        result: undefined,
        paramNames: ['a'],
        description: undefined,
        system: false,
      },
      expect.objectContaining({ name: 'rpc.discover', system: true }),
    ]);
  });
});

describe('implement()', () => {
  it('registers a contract with a prefix, validating params', async () => {
    const server = createServer();
    const log = vi.fn();
    const dispose = server.implement(
      calculator,
      {
        add: ([a, b]) => a + b,
        divide: ({ a, b }) => a / b,
        log: ({ message }) => log(message),
      },
      { prefix: 'calc.' },
    );
    expect(await server.handle(req('calc.add', [1, 2]))).toBe(
      '{"jsonrpc":"2.0","id":1,"result":3}',
    );
    expect(await server.handle(req('calc.divide', [1, 4]))).toBe(
      '{"jsonrpc":"2.0","id":1,"result":0.25}',
    );
    expect(await server.handle(req('calc.divide', { b: 2, a: 1 }))).toBe(
      '{"jsonrpc":"2.0","id":1,"result":0.5}',
    );
    expect(JSON.parse((await server.handle(req('calc.add', ['1', 2])))!).error.code).toBe(-32602);
    await server.handle('{"jsonrpc":"2.0","method":"calc.log","params":["hi"]}');
    expect(log).toHaveBeenCalledWith('hi');
    expect(server.methods().map((m) => [m.name, m.kind, m.description])).toEqual([
      ['calc.add', 'method', undefined],
      ['calc.divide', 'method', 'a / b'],
      ['calc.log', 'notification', undefined],
    ]);
    dispose();
    expect(server.methods()).toEqual([]);
  });

  it('refuses a missing handler or a taken name, registering nothing', () => {
    const server = createServer();
    server.method('divide', () => 0);
    expect(() => server.implement(calculator, { add: () => 1, divide: () => 1 } as never)).toThrow(
      /no handler for "log"/,
    );
    expect(() =>
      server.implement(calculator, { add: () => 1, divide: () => 1, log: () => {} }),
    ).toThrow(/already registered/);
    expect(server.methods().map((m) => m.name)).toEqual(['divide']);
  });
});
