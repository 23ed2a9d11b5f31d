import { type Codec, superjsonCodec } from '@jsonrpc-kit/core';
import { describe, expect, it } from 'vitest';
import { createServer } from './server.js';

/** A superjson-shaped stand-in that knows Dates: `{ json, meta: 'Date' }` on the wire. */
const superjson = {
  serialize: (value: unknown) =>
    value instanceof Date ? { json: value.toISOString(), meta: 'Date' } : { json: value },
  deserialize: (payload: { json: unknown; meta?: unknown }) =>
    payload.meta === 'Date' ? new Date(payload.json as string) : payload.json,
};

describe('params a codec cannot decode', () => {
  it('a superjson server answers plain params -32602, saying what it expected', async () => {
    const server = createServer({ codec: superjsonCodec(superjson) });
    server.method('next_day', (d: Date) => new Date(d.getTime() + 86_400_000));
    // A client without the codec: plain positional params.
    expect(
      await server.handle(
        '{"jsonrpc":"2.0","id":1,"method":"next_day","params":["2020-01-01T00:00:00.000Z"]}',
      ),
    ).toBe(
      '{"jsonrpc":"2.0","id":1,"error":{"code":-32602,"message":"Invalid params: the params did not decode with the server\'s codec (expected superjson\'s {\\"json\\": …, \\"meta\\": …}): is the client using the same codec?"}}',
    );
    // The same call from a client with the codec runs.
    const encoded = JSON.stringify(superjson.serialize(new Date('2020-01-01T00:00:00.000Z')));
    const answer = JSON.parse(
      (await server.handle(
        `{"jsonrpc":"2.0","id":2,"method":"next_day","params":${encoded}}`,
      )) as string,
    );
    expect(answer.result).toEqual({ json: '2020-01-02T00:00:00.000Z', meta: 'Date' });
    // Absent params have nothing to decode.
    server.method('ping', () => 'pong');
    expect(await server.handle('{"jsonrpc":"2.0","id":3,"method":"ping"}')).toBe(
      '{"jsonrpc":"2.0","id":3,"result":{"json":"pong"}}',
    );
  });

  it('plainParams takes plain params as they are', async () => {
    const server = createServer({ codec: superjsonCodec(superjson, { plainParams: true }) });
    server.method('echo', (params: unknown) => params);
    expect(await server.handle('{"jsonrpc":"2.0","id":1,"method":"echo","params":[1]}')).toBe(
      '{"jsonrpc":"2.0","id":1,"result":{"json":[1]}}',
    );
  });

  it('a decode that throws is answered -32602 with its message', async () => {
    const strict: Codec = {
      decode: (value) => {
        if (!Array.isArray(value)) throw new TypeError('expected an array');
        return value;
      },
    };
    const server = createServer({ codec: strict });
    server.method('m', () => 1);
    expect(await server.handle('{"jsonrpc":"2.0","id":1,"method":"m","params":{"a":1}}')).toBe(
      '{"jsonrpc":"2.0","id":1,"error":{"code":-32602,"message":"Invalid params: the params did not decode with the server\'s codec: expected an array"}}',
    );
  });
});
