import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type NetworkChild, post, spawnNetwork } from './raw-peers.js';

/** Starts the server with some flags around a describe; returns a raw-text POST to it. */
function serverWith(args: readonly string[]): (body: string) => Promise<string> {
  let child: NetworkChild | undefined;
  beforeAll(async () => {
    child = await spawnNetwork(['--port', '0', ...args]);
  });
  afterAll(async () => {
    await child?.close();
  });
  return async (body) => (await post(child!.httpUrl, body)).body;
}

describe('big_add: integers of any size, exact, as plain JSON numbers (lossless-number codec)', () => {
  const send = serverWith([]);
  it('adds beyond 2^53 and 2^64 digit for digit', async () => {
    expect(
      await send(
        '{"jsonrpc":"2.0","method":"big_add","params":[9007199254740993,18446744073709551616],"id":1}',
      ),
    ).toBe('{"jsonrpc":"2.0","id":1,"result":18455751272964292609}');
    expect(
      await send(
        '{"jsonrpc":"2.0","method":"big_add","params":[-123456789012345678901234567890,1],"id":2}',
      ),
    ).toBe('{"jsonrpc":"2.0","id":2,"result":-123456789012345678901234567889}');
  });

  it('refuses what is not an integer (-32602)', async () => {
    expect(await send('{"jsonrpc":"2.0","method":"big_add","params":[1.5,1],"id":3}')).toContain(
      '"code":-32602',
    );
  });
});

describe('--jsonrpc1: JSON-RPC 1.0 beside 2.0, each answered in its own version', () => {
  const send = serverWith(['--jsonrpc1']);
  it('answers 1.0 in 1.0 and 2.0 in 2.0', async () => {
    expect(await send('{"method":"sum","params":[1,2],"id":1}')).toBe(
      '{"id":1,"result":3,"error":null}',
    );
    expect(await send('{"method":"nope","params":[],"id":2}')).toBe(
      '{"id":2,"result":null,"error":{"code":-32601,"message":"Method not found"}}',
    );
    expect(await send('{"jsonrpc":"2.0","method":"sum","params":[1,2],"id":3}')).toBe(
      '{"jsonrpc":"2.0","id":3,"result":3}',
    );
  });

  it('id null is a 1.0 notification: no answer (HTTP 204, empty body)', async () => {
    expect(await send('{"method":"update","params":[1],"id":null}')).toBe('');
  });
});

describe('--no-batch', () => {
  const send = serverWith(['--no-batch']);
  it('refuses a batch with one -32600 and still answers single requests', async () => {
    expect(await send('[{"jsonrpc":"2.0","method":"sum","params":[1],"id":1}]')).toBe(
      '{"jsonrpc":"2.0","id":null,"error":{"code":-32600,"message":"Invalid Request: this server does not accept batches"}}',
    );
    expect(await send('{"jsonrpc":"2.0","method":"sum","params":[1],"id":1}')).toBe(
      '{"jsonrpc":"2.0","id":1,"result":1}',
    );
  });
});

describe('--params-violation invalid-request', () => {
  const send = serverWith(['--params-violation', 'invalid-request']);
  it('answers -32600 for params that are not structured', async () => {
    expect(await send('{"jsonrpc":"2.0","method":"sum","params":"bar","id":1}')).toBe(
      '{"jsonrpc":"2.0","id":1,"error":{"code":-32600,"message":"Invalid Request: params must be an array or an object"}}',
    );
  });
});

describe('without flags', () => {
  const send = serverWith([]);
  it('a 1.0 request is -32600, a batch is served, bad params are -32602', async () => {
    expect(await send('{"method":"sum","params":[1,2],"id":1}')).toContain('"code":-32600');
    expect(await send('[{"jsonrpc":"2.0","method":"sum","params":[1],"id":1}]')).toBe(
      '[{"jsonrpc":"2.0","id":1,"result":1}]',
    );
    expect(await send('{"jsonrpc":"2.0","method":"sum","params":"bar","id":1}')).toContain(
      '"code":-32602',
    );
  });

  it('--params-violation with another value exits 2', async () => {
    await expect(spawnNetwork(['--params-violation', 'teapot'])).rejects.toThrow(/exited with 2/);
  });
});
