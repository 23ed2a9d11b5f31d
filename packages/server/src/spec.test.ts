import { createMemoryTransportPair, type Transport } from '@jsonrpc-kit/core';
import * as v from 'valibot';
import { afterEach, describe, expect, it } from 'vitest';
import { createServer } from './server.js';
import type { Server } from './server-types.js';

/** The server of the JSON-RPC 2.0 specification's examples (section 7). */
function specServer(): Server {
  const server = createServer();
  server.method(
    'subtract',
    (p: { minuend: number; subtrahend: number }) => p.minuend - p.subtrahend,
    {
      params: v.object({ minuend: v.number(), subtrahend: v.number() }),
    },
  );
  server.method('sum', (p: number[]) => p.reduce((a, b) => a + b, 0));
  server.method('get_data', () => ['hello', 5]);
  server.method('ping', () => 'pong');
  server.notification('update', () => {});
  server.notification('notify_hello', () => {});
  server.method('notify_sum', (p: number[]) => p.reduce((a, b) => a + b, 0));
  return server;
}

type Exchange = (text: string) => Promise<string | undefined>;

const PING = '{"jsonrpc":"2.0","id":"__ping","method":"ping"}';
const PONG = '{"jsonrpc":"2.0","id":"__ping","result":"pong"}';

const cleanups: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0)) await cleanup();
});

/** Over a memory transport: writes raw text, then a ping; what came before the pong is the answer. */
async function connectExchange(server: Server): Promise<Exchange> {
  const [a, b] = createMemoryTransportPair();
  const connection = server.connect(b, { kind: 'memory' });
  const inbox: string[] = [];
  let wake: (() => void) | undefined;
  await a.start({
    onMessage(message) {
      inbox.push(message);
      wake?.();
    },
    onClose() {},
  });
  cleanups.push(() => connection.close());
  const next = async (): Promise<string> => {
    for (let i = 0; i < 100 && inbox.length === 0; i++) {
      await new Promise<void>((resolve) => {
        wake = resolve;
        setTimeout(resolve, 20);
      });
    }
    const message = inbox.shift();
    if (message === undefined) throw new Error('no answer');
    return message;
  };
  return async (text) => {
    await (a as Transport).send(text);
    await a.send(PING);
    const first = await next();
    if (first === PONG) return undefined;
    expect(await next()).toBe(PONG);
    return first;
  };
}

const exchanges: Array<[string, (server: Server) => Promise<Exchange>]> = [
  ['handle()', async (server) => (text) => server.handle(text)],
  ['connect()', connectExchange],
];

describe.each(exchanges)('JSON-RPC 2.0 specification examples over %s', (_name, make) => {
  let exchange: Exchange;
  const json = async (text: string): Promise<unknown> => {
    const answer = await exchange(text);
    return answer === undefined ? undefined : JSON.parse(answer);
  };

  afterEach(() => {});

  it('rpc call with positional parameters', async () => {
    exchange = await make(specServer());
    expect(
      await exchange('{"jsonrpc": "2.0", "method": "subtract", "params": [42, 23], "id": 1}'),
    ).toBe('{"jsonrpc":"2.0","id":1,"result":19}');
    expect(
      await exchange('{"jsonrpc": "2.0", "method": "subtract", "params": [23, 42], "id": 2}'),
    ).toBe('{"jsonrpc":"2.0","id":2,"result":-19}');
  });

  it('rpc call with named parameters', async () => {
    exchange = await make(specServer());
    expect(
      await exchange(
        '{"jsonrpc": "2.0", "method": "subtract", "params": {"subtrahend": 23, "minuend": 42}, "id": 3}',
      ),
    ).toBe('{"jsonrpc":"2.0","id":3,"result":19}');
    expect(
      await exchange(
        '{"jsonrpc": "2.0", "method": "subtract", "params": {"minuend": 42, "subtrahend": 23}, "id": 4}',
      ),
    ).toBe('{"jsonrpc":"2.0","id":4,"result":19}');
  });

  it('a notification', async () => {
    exchange = await make(specServer());
    expect(await exchange('{"jsonrpc": "2.0", "method": "update", "params": [1,2,3,4,5]}')).toBe(
      undefined,
    );
    expect(await exchange('{"jsonrpc": "2.0", "method": "foobar"}')).toBe(undefined);
  });

  it('rpc call of non-existent method', async () => {
    exchange = await make(specServer());
    expect(await exchange('{"jsonrpc": "2.0", "method": "foobar", "id": "1"}')).toBe(
      '{"jsonrpc":"2.0","id":"1","error":{"code":-32601,"message":"Method not found"}}',
    );
  });

  it('rpc call with invalid JSON', async () => {
    exchange = await make(specServer());
    expect(await exchange('{"jsonrpc": "2.0", "method": "foobar, "params": "bar", "baz]')).toBe(
      '{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"Parse error"}}',
    );
  });

  it('rpc call with invalid Request object', async () => {
    exchange = await make(specServer());
    expect(await exchange('{"jsonrpc": "2.0", "method": 1, "params": "bar"}')).toBe(
      '{"jsonrpc":"2.0","id":null,"error":{"code":-32600,"message":"Invalid Request"}}',
    );
  });

  it('rpc call Batch, invalid JSON', async () => {
    exchange = await make(specServer());
    expect(
      await exchange(
        '[{"jsonrpc": "2.0", "method": "sum", "params": [1,2,4], "id": "1"},{"jsonrpc": "2.0", "method"]',
      ),
    ).toBe('{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"Parse error"}}');
  });

  it('rpc call with an empty Array', async () => {
    exchange = await make(specServer());
    expect(await exchange('[]')).toBe(
      '{"jsonrpc":"2.0","id":null,"error":{"code":-32600,"message":"Invalid Request"}}',
    );
  });

  it('rpc call with an invalid Batch (but not empty)', async () => {
    exchange = await make(specServer());
    expect(await exchange('[1]')).toBe(
      '[{"jsonrpc":"2.0","id":null,"error":{"code":-32600,"message":"Invalid Request"}}]',
    );
  });

  it('rpc call with invalid Batch', async () => {
    exchange = await make(specServer());
    const one = '{"jsonrpc":"2.0","id":null,"error":{"code":-32600,"message":"Invalid Request"}}';
    expect(await exchange('[1,2,3]')).toBe(`[${one},${one},${one}]`);
  });

  it('rpc call Batch (mixed)', async () => {
    exchange = await make(specServer());
    const text = `[
      {"jsonrpc": "2.0", "method": "sum", "params": [1,2,4], "id": "1"},
      {"jsonrpc": "2.0", "method": "notify_hello", "params": [7]},
      {"jsonrpc": "2.0", "method": "subtract", "params": [42,23], "id": "2"},
      {"foo": "boo"},
      {"jsonrpc": "2.0", "method": "foo.get", "params": {"name": "myself"}, "id": "5"},
      {"jsonrpc": "2.0", "method": "get_data", "id": "9"}
    ]`;
    expect(await json(text)).toEqual([
      { jsonrpc: '2.0', result: 7, id: '1' },
      { jsonrpc: '2.0', result: 19, id: '2' },
      { jsonrpc: '2.0', error: { code: -32600, message: 'Invalid Request' }, id: null },
      { jsonrpc: '2.0', error: { code: -32601, message: 'Method not found' }, id: '5' },
      { jsonrpc: '2.0', result: ['hello', 5], id: '9' },
    ]);
  });

  it('rpc call Batch (all notifications)', async () => {
    exchange = await make(specServer());
    expect(
      await exchange(
        '[{"jsonrpc": "2.0", "method": "notify_sum", "params": [1,2,4]},{"jsonrpc": "2.0", "method": "notify_hello", "params": [7]}]',
      ),
    ).toBe(undefined);
  });

  it('echoes big and fractional ids exactly', async () => {
    exchange = await make(specServer());
    expect(await exchange('{"jsonrpc":"2.0","id":9007199254740993,"method":"ping"}')).toBe(
      '{"jsonrpc":"2.0","id":9007199254740993,"result":"pong"}',
    );
    expect(await exchange('{"jsonrpc":"2.0","id":1.5,"method":"ping"}')).toBe(
      '{"jsonrpc":"2.0","id":1.5,"result":"pong"}',
    );
    expect(
      await exchange(
        '[{"jsonrpc":"2.0","id":123456789012345678901234567890,"method":"ping"},{"jsonrpc":"2.0","id":0.1000000000000000055511151231257827,"method":"nope"}]',
      ),
    ).toBe(
      '[{"jsonrpc":"2.0","id":123456789012345678901234567890,"result":"pong"},{"jsonrpc":"2.0","id":0.1000000000000000055511151231257827,"error":{"code":-32601,"message":"Method not found"}}]',
    );
    expect(await exchange('{"jsonrpc":"2.0","id":null,"method":"ping"}')).toBe(
      '{"jsonrpc":"2.0","id":null,"result":"pong"}',
    );
  });

  it('answers prototype names with -32601 and keeps working', async () => {
    exchange = await make(specServer());
    for (const name of ['__proto__', 'constructor', 'toString', 'hasOwnProperty', 'valueOf']) {
      expect(await json(`{"jsonrpc":"2.0","id":1,"method":"${name}","params":[]}`)).toEqual({
        jsonrpc: '2.0',
        id: 1,
        error: { code: -32601, message: 'Method not found' },
      });
    }
    expect(await json('{"jsonrpc":"2.0","id":1,"method":"rpc.discover"}')).toMatchObject({
      error: { code: -32601 },
    });
    expect(await exchange('{"jsonrpc":"2.0","id":2,"method":"ping"}')).toBe(
      '{"jsonrpc":"2.0","id":2,"result":"pong"}',
    );
  });

  it('answers params that are neither array nor object with -32602', async () => {
    exchange = await make(specServer());
    expect(await json('{"jsonrpc":"2.0","id":7,"method":"sum","params":3}')).toMatchObject({
      id: 7,
      error: { code: -32602 },
    });
    expect(await exchange('{"jsonrpc":"2.0","method":"sum","params":"x"}')).toBe(undefined);
  });
});
