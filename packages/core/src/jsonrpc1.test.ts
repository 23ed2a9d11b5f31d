import { describe, expect, it } from 'vitest';
import { jsonWriterOf, losslessNumbers } from './codec.js';
import {
  jsonrpc1,
  serializeError1,
  serializeNotification1,
  serializeRequest1,
  serializeSuccess1,
} from './jsonrpc1.js';
import { parse } from './parse.js';

describe('JSON-RPC 1.0 on the wire', () => {
  it('writes requests, notifications and both kinds of answer', () => {
    expect(serializeRequest1(1, 'echo', ['hi'])).toBe('{"id":1,"method":"echo","params":["hi"]}');
    expect(serializeRequest1(2, 'ping', undefined)).toBe('{"id":2,"method":"ping","params":[]}');
    expect(serializeNotification1('log', ['x'])).toBe('{"id":null,"method":"log","params":["x"]}');
    expect(serializeSuccess1(1, 'hi')).toBe('{"id":1,"result":"hi","error":null}');
    expect(serializeSuccess1(1, undefined, '12345678901234567890')).toBe(
      '{"id":12345678901234567890,"result":null,"error":null}',
    );
    expect(serializeError1('a,"error":', { code: -32601, message: 'Method not found' })).toBe(
      '{"id":"a,\\"error\\":","result":null,"error":{"code":-32601,"message":"Method not found"}}',
    );
    expect(serializeSuccess1(1, 2n ** 70n, undefined, jsonWriterOf(losslessNumbers))).toBe(
      '{"id":1,"result":1180591620717411303424,"error":null}',
    );
  });

  it('refuses params by name', () => {
    expect(() => serializeRequest1(1, 'x', { a: 1 } as never)).toThrow(/by position only/);
  });

  it('parse accepts 1.0 requests only when asked', () => {
    const text = '{"id":7,"method":"echo","params":["hi"]}';
    expect(parse(text)).toMatchObject({ kind: 'invalid', error: { code: -32600 } });
    expect(parse(text, { jsonrpc1 })).toEqual({
      kind: 'request',
      message: { jsonrpc: '2.0', id: 7, method: 'echo', params: ['hi'] },
      rawId: undefined,
      jsonrpc1: true,
    });
    expect(parse('{"id":null,"method":"log","params":[1]}', { jsonrpc1 })).toEqual({
      kind: 'notification',
      message: { jsonrpc: '2.0', method: 'log', params: [1] },
    });
    expect(parse('{"id":3,"method":"x","params":{"a":1}}', { jsonrpc1 })).toMatchObject({
      kind: 'invalid',
      id: 3,
      error: { code: -32602 },
    });
    // 2.0 messages read as before beside 1.0.
    expect(parse('{"jsonrpc":"2.0","id":null,"method":"x"}', { jsonrpc1 })).toMatchObject({
      kind: 'request',
      message: { id: null },
    });
  });

  it('parse reads 1.0 answers (result beside error, one null) only when asked', () => {
    const ok = '{"id":1,"result":3,"error":null}';
    expect(parse(ok, { jsonrpc1 })).toEqual({
      kind: 'response',
      message: { jsonrpc: '2.0', id: 1, result: 3 },
      rawId: undefined,
    });
    expect(parse(ok)).toMatchObject({ kind: 'invalid', response: true });
    expect(parse('{"id":2,"result":null,"error":{"code":5,"message":"no"}}', { jsonrpc1 })).toEqual(
      {
        kind: 'response',
        message: { jsonrpc: '2.0', id: 2, error: { code: 5, message: 'no' } },
        rawId: undefined,
      },
    );
    for (const bad of [
      '{"id":3,"result":1,"error":{"code":5,"message":"no"}}',
      '{"id":4,"result":null,"error":{"code":1.5,"message":"no"}}',
    ]) {
      expect(parse(bad, { jsonrpc1 })).toMatchObject({ kind: 'invalid', response: true });
    }
  });

  it('a big integer id read by a lossless reader keeps its digits', () => {
    expect(
      parse('{"jsonrpc":"2.0","id":123456789012345678901,"method":"x"}', {
        read: (t) =>
          JSON.parse(t, (_k, v) => (v === 123456789012345680000 ? 123456789012345678901n : v)),
      }),
    ).toMatchObject({ kind: 'request', rawId: '123456789012345678901' });
  });
});
