import {
  createMemoryTransportPair,
  defineContract,
  JsonRpcError,
  losslessNumbers,
  method,
  superjsonCodec,
} from '@jsonrpc-kit/core';
import * as v from 'valibot';
import { describe, expect, it, vi } from 'vitest';
import { createServer } from './server.js';

describe('codec', () => {
  it('losslessNumbers: big integers in and out as plain JSON numbers, every digit kept', async () => {
    const server = createServer({ codec: losslessNumbers });
    server.method('big_add', ([a, b]: [bigint | number, bigint | number]) => BigInt(a) + BigInt(b));
    expect(
      await server.handle(
        '{"jsonrpc":"2.0","id":18446744073709551617,"method":"big_add","params":[18446744073709551615,18446744073709551615]}',
      ),
    ).toBe('{"jsonrpc":"2.0","id":18446744073709551617,"result":36893488147419103230}');
    // Small numbers stay numbers.
    expect(await server.handle('{"jsonrpc":"2.0","id":1,"method":"big_add","params":[1,2]}')).toBe(
      '{"jsonrpc":"2.0","id":1,"result":3}',
    );
  });

  it('without a codec a BigInt result is still a -32603 (the default path is unchanged)', async () => {
    const server = createServer();
    server.method('big', () => 1n);
    expect(await server.handle('{"jsonrpc":"2.0","id":1,"method":"big"}')).toContain('-32603');
  });

  it('schemas validate decoded values, and results are encoded', async () => {
    const codec = superjsonCodec({
      serialize: (value: unknown) =>
        value instanceof Date ? { json: value.toISOString(), meta: 'Date' } : { json: value },
      deserialize: (payload: { json: unknown; meta?: unknown }) =>
        payload.meta === 'Date' ? new Date(payload.json as string) : payload.json,
    });
    const server = createServer({ codec });
    server.method('next_day', (d: Date) => new Date(d.getTime() + 86_400_000), {
      params: v.date() as never,
    });
    expect(
      await server.handle(
        '{"jsonrpc":"2.0","id":1,"method":"next_day","params":{"json":"2020-01-01T00:00:00.000Z","meta":"Date"}}',
      ),
    ).toBe('{"jsonrpc":"2.0","id":1,"result":{"json":"2020-01-02T00:00:00.000Z","meta":"Date"}}');
    expect(
      await server.handle(
        '{"jsonrpc":"2.0","id":2,"method":"next_day","params":{"json":"no","meta":"x"}}',
      ),
    ).toContain('"code":-32602');
  });

  it('applies on connect() too', async () => {
    const server = createServer({ codec: losslessNumbers });
    server.method('echo', (p: unknown) => p);
    const [a, b] = createMemoryTransportPair();
    server.connect(b);
    const answers: string[] = [];
    await a.start({ onMessage: (m) => answers.push(m), onClose: () => {} });
    await a.send(
      '{"jsonrpc":"2.0","id":1,"method":"echo","params":[123456789012345678901234567890]}',
    );
    await vi.waitFor(() => expect(answers).toHaveLength(1));
    expect(answers[0]).toBe('{"jsonrpc":"2.0","id":1,"result":[123456789012345678901234567890]}');
    await server.close();
  });
});

describe('JSON-RPC 1.0 beside 2.0', () => {
  const server = createServer({ jsonrpc1: true });
  server.method('echo', (p: unknown) => p);
  server.method('fail', () => {
    throw new JsonRpcError(1, 'no');
  });
  const seen: unknown[] = [];
  server.notification('log', (p: unknown) => {
    seen.push(p);
  });

  it('answers each request in its own version', async () => {
    expect(await server.handle('{"id":1,"method":"echo","params":["hi"]}')).toBe(
      '{"id":1,"result":["hi"],"error":null}',
    );
    expect(await server.handle('{"id":2,"method":"fail","params":[]}')).toBe(
      '{"id":2,"result":null,"error":{"code":1,"message":"no"}}',
    );
    expect(await server.handle('{"id":3,"method":"nope","params":[]}')).toBe(
      '{"id":3,"result":null,"error":{"code":-32601,"message":"Method not found"}}',
    );
    expect(await server.handle('{"jsonrpc":"2.0","id":4,"method":"echo","params":["hi"]}')).toBe(
      '{"jsonrpc":"2.0","id":4,"result":["hi"]}',
    );
  });

  it('id null is a notification: run, never answered', async () => {
    expect(await server.handle('{"id":null,"method":"log","params":["x"]}')).toBeUndefined();
    expect(seen).toEqual([['x']]);
  });

  it('params by name are not 1.0', async () => {
    expect(await server.handle('{"id":5,"method":"echo","params":{"a":1}}')).toContain('-32602');
  });

  it('is off by default: a request without jsonrpc is -32600', async () => {
    const plain = createServer();
    plain.method('echo', (p: unknown) => p);
    expect(await plain.handle('{"id":1,"method":"echo","params":["hi"]}')).toBe(
      '{"jsonrpc":"2.0","id":1,"error":{"code":-32600,"message":"Invalid Request"}}',
    );
  });
});

describe('params-type violation code', () => {
  it('-32602 by default, -32600 with paramsViolation "invalid-request"', async () => {
    const text = '{"jsonrpc":"2.0","id":1,"method":"echo","params":"bar"}';
    const byDefault = createServer();
    expect(await byDefault.handle(text)).toContain('"code":-32602');
    const strict = createServer({ paramsViolation: 'invalid-request' });
    expect(await strict.handle(text)).toBe(
      '{"jsonrpc":"2.0","id":1,"error":{"code":-32600,"message":"Invalid Request: params must be an array or an object"}}',
    );
  });
});

describe('errorHandler', () => {
  it('maps thrown values to error objects; undefined keeps -32603; JsonRpcErrors pass through', async () => {
    const server = createServer({
      errorHandler: (error) =>
        error instanceof RangeError ? { code: -32602, message: error.message } : undefined,
    });
    server.method('range', () => {
      throw new RangeError('n must be positive');
    });
    server.method('other', () => {
      throw new Error('secret path /etc');
    });
    server.method('wire', () => {
      throw new JsonRpcError(7, 'seven');
    });
    expect(await server.handle('{"jsonrpc":"2.0","id":1,"method":"range"}')).toBe(
      '{"jsonrpc":"2.0","id":1,"error":{"code":-32602,"message":"n must be positive"}}',
    );
    expect(await server.handle('{"jsonrpc":"2.0","id":2,"method":"other"}')).toBe(
      '{"jsonrpc":"2.0","id":2,"error":{"code":-32603,"message":"Internal error"}}',
    );
    expect(await server.handle('{"jsonrpc":"2.0","id":3,"method":"wire"}')).toContain('"code":7');
  });

  it('a throwing or malformed errorHandler gives the default, reported', async () => {
    const onError = vi.fn();
    const server = createServer({
      onError,
      errorHandler: (error) => {
        if (error === 'bad') return { code: 1.5, message: 'x' };
        throw new Error('mapper broke');
      },
    });
    server.method('a', () => {
      throw 'bad';
    });
    server.method('b', () => {
      throw 'worse';
    });
    expect(await server.handle('{"jsonrpc":"2.0","id":1,"method":"a"}')).toContain('-32603');
    expect(await server.handle('{"jsonrpc":"2.0","id":2,"method":"b"}')).toContain('-32603');
    expect(onError.mock.calls.map(([e]) => String(e))).toContain('Error: mapper broke');
  });

  it('a JsonRpcError with a code that is not an integer never reaches the wire', async () => {
    const onError = vi.fn();
    const server = createServer({ onError });
    server.method('frac', () => {
      throw new JsonRpcError(1.5, 'half');
    });
    expect(await server.handle('{"jsonrpc":"2.0","id":1,"method":"frac"}')).toBe(
      '{"jsonrpc":"2.0","id":1,"error":{"code":-32603,"message":"Internal error"}}',
    );
    expect(String(onError.mock.calls[0]?.[0])).toMatch(/integer/);
  });
});

describe('method naming', () => {
  const calculator = defineContract(
    { add: method({ params: v.tuple([v.number(), v.number()]), result: v.number() }) },
    { name: 'Calculator' },
  );
  const implementation = { add: ([a, b]: [number, number]) => a + b };

  it('plain, prefixed and fully qualified', async () => {
    const server = createServer();
    server.implement(calculator, implementation);
    server.implement(calculator, implementation, { prefix: 'calc.' });
    server.implement(calculator, implementation, { naming: 'qualified' });
    expect(server.methods().map((m) => m.name)).toEqual(['add', 'calc.add', 'Calculator.add']);
    expect(
      await server.handle('{"jsonrpc":"2.0","id":1,"method":"Calculator.add","params":[1,2]}'),
    ).toBe('{"jsonrpc":"2.0","id":1,"result":3}');
  });

  it('qualified naming needs a named contract', () => {
    const server = createServer();
    const unnamed = defineContract({ add: method() });
    expect(() => server.implement(unnamed, { add: () => 1 }, { naming: 'qualified' })).toThrow(
      /named contract/,
    );
  });
});

describe('system methods', () => {
  it('rpc.listMethods when asked for; off by default', async () => {
    const server = createServer({ listMethods: true });
    server.method('b', () => 1);
    server.method('a', () => 1);
    server.notification('n', () => {});
    expect(await server.handle('{"jsonrpc":"2.0","id":1,"method":"rpc.listMethods"}')).toBe(
      '{"jsonrpc":"2.0","id":1,"result":["b","a"]}',
    );
    const plain = createServer();
    expect(await plain.handle('{"jsonrpc":"2.0","id":1,"method":"rpc.listMethods"}')).toContain(
      '-32601',
    );
  });

  it('switched off as a whole: registerSystem registers nothing, rpc.* is -32601', async () => {
    const server = createServer({ systemMethods: false, listMethods: true });
    const dispose = server.registerSystem('rpc.discover', () => ({}));
    dispose();
    expect(server.methods()).toEqual([]);
    expect(await server.handle('{"jsonrpc":"2.0","id":1,"method":"rpc.discover"}')).toContain(
      '-32601',
    );
    expect(await server.handle('{"jsonrpc":"2.0","id":2,"method":"rpc.listMethods"}')).toContain(
      '-32601',
    );
  });
});

describe('batches refused', () => {
  it('one -32600 with id null, and no member runs', async () => {
    const ran = vi.fn();
    const server = createServer({ batches: false });
    server.method('a', ran);
    expect(
      await server.handle('[{"jsonrpc":"2.0","id":1,"method":"a"},{"jsonrpc":"2.0","method":"a"}]'),
    ).toBe(
      '{"jsonrpc":"2.0","id":null,"error":{"code":-32600,"message":"Invalid Request: this server does not accept batches"}}',
    );
    expect(ran).not.toHaveBeenCalled();
    expect(await server.handle('{"jsonrpc":"2.0","id":1,"method":"a"}')).toContain('"result"');
    // Longer than maxBatchSize: the same answer, not -32003; an empty array stays -32600.
    const long = `[${Array.from({ length: 200 }, () => '{"jsonrpc":"2.0","method":"a"}').join(',')}]`;
    expect(await server.handle(long)).toContain('does not accept batches');
    expect(await server.handle('[]')).toBe(
      '{"jsonrpc":"2.0","id":null,"error":{"code":-32600,"message":"Invalid Request"}}',
    );
  });
});
