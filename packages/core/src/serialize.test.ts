import { describe, expect, it, vi } from 'vitest';
import { parse } from './parse.js';
import {
  serializeBatch,
  serializeError,
  serializeNotification,
  serializeRequest,
  serializeSuccess,
  stringifyId,
} from './serialize.js';

describe('serializers', () => {
  it('build exact envelopes', () => {
    expect(serializeSuccess(1, 19)).toBe('{"jsonrpc":"2.0","id":1,"result":19}');
    expect(serializeSuccess('a"b', { x: [1] })).toBe(
      '{"jsonrpc":"2.0","id":"a\\"b","result":{"x":[1]}}',
    );
    expect(serializeSuccess(null, null)).toBe('{"jsonrpc":"2.0","id":null,"result":null}');
    expect(serializeError(null, { code: -32700, message: 'Parse error' })).toBe(
      '{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"Parse error"}}',
    );
    expect(serializeError(2, { code: 5, message: 'm', data: { a: 1 } })).toBe(
      '{"jsonrpc":"2.0","id":2,"error":{"code":5,"message":"m","data":{"a":1}}}',
    );
    expect(serializeRequest(3, 'sum', [1, 2])).toBe(
      '{"jsonrpc":"2.0","id":3,"method":"sum","params":[1,2]}',
    );
    expect(serializeRequest(3, 'ping')).toBe('{"jsonrpc":"2.0","id":3,"method":"ping"}');
    expect(serializeNotification('log', { m: 'x' })).toBe(
      '{"jsonrpc":"2.0","method":"log","params":{"m":"x"}}',
    );
    expect(serializeNotification('tick')).toBe('{"jsonrpc":"2.0","method":"tick"}');
  });

  it('turns an undefined or function result into null', () => {
    expect(serializeSuccess(1, undefined)).toBe('{"jsonrpc":"2.0","id":1,"result":null}');
    expect(serializeSuccess(1, () => 1)).toBe('{"jsonrpc":"2.0","id":1,"result":null}');
  });

  it('throws on results JSON cannot represent, so the caller can answer -32603', () => {
    const cycle: Record<string, unknown> = {};
    cycle.self = cycle;
    expect(() => serializeSuccess(1, 1n)).toThrow(TypeError);
    expect(() => serializeSuccess(1, cycle)).toThrow(TypeError);
  });

  it('drops error data JSON cannot represent instead of throwing', () => {
    expect(serializeError(1, { code: 1, message: 'm', data: 1n })).toBe(
      '{"jsonrpc":"2.0","id":1,"error":{"code":1,"message":"m"}}',
    );
  });

  it('echoes exact ids from raw text', () => {
    for (const id of ['9007199254740993', '1.5', '-12345678901234567890.25', '1e400']) {
      const parsed = parse(`{"jsonrpc":"2.0","id":${id},"method":"a"}`);
      if (parsed.kind !== 'request') throw new Error('expected a request');
      expect(serializeSuccess(parsed.message.id, true, parsed.rawId)).toBe(
        `{"jsonrpc":"2.0","id":${id},"result":true}`,
      );
      expect(serializeError(parsed.message.id, { code: 1, message: 'm' }, parsed.rawId)).toContain(
        `"id":${id},`,
      );
    }
  });

  it('stringifies ids', () => {
    expect(stringifyId(null)).toBe('null');
    expect(stringifyId(-0.5)).toBe('-0.5');
    expect(stringifyId('x')).toBe('"x"');
    expect(stringifyId(1, '1.0')).toBe('1.0');
    expect(stringifyId(-0)).toBe('0');
    expect(stringifyId(9007199254740991)).toBe('9007199254740991');
  });

  it('writes number ids without String(), which would keep every id text alive in a cache', () => {
    const string = vi.spyOn(globalThis, 'String');
    try {
      expect(serializeRequest(41, 'a')).toBe('{"jsonrpc":"2.0","id":41,"method":"a"}');
      expect(serializeSuccess(42, 1)).toBe('{"jsonrpc":"2.0","id":42,"result":1}');
      expect(serializeError(43, { code: 1, message: 'm' })).toBe(
        '{"jsonrpc":"2.0","id":43,"error":{"code":1,"message":"m"}}',
      );
      // Counting work: V8 caches what String(number) returns; a busy connection's ids then
      // survive young-generation collections and cost a copy each.
      expect(string).not.toHaveBeenCalled();
    } finally {
      string.mockRestore();
    }
  });

  it('writes the JSON of a method name once while messages repeat it', () => {
    const stringify = vi.spyOn(JSON, 'stringify');
    try {
      for (let id = 1; id <= 3; id++) {
        expect(serializeRequest(id, 'tools/call')).toBe(
          `{"jsonrpc":"2.0","id":${id},"method":"tools/call"}`,
        );
      }
      expect(serializeNotification('tools/call')).toBe('{"jsonrpc":"2.0","method":"tools/call"}');
      const ofMethod = stringify.mock.calls.filter(([value]) => value === 'tools/call');
      expect(ofMethod).toHaveLength(1);
    } finally {
      stringify.mockRestore();
    }
  });

  it('writes each method name right when it changes from message to message', () => {
    expect(serializeRequest(1, 'a')).toBe('{"jsonrpc":"2.0","id":1,"method":"a"}');
    expect(serializeNotification('b"\n', [1])).toBe(
      '{"jsonrpc":"2.0","method":"b\\"\\n","params":[1]}',
    );
    expect(serializeRequest(2, 'a', {})).toBe('{"jsonrpc":"2.0","id":2,"method":"a","params":{}}');
    expect(JSON.parse(serializeNotification('b"\n')).method).toBe('b"\n');
  });

  it('joins batches and refuses to build an empty one', () => {
    expect(serializeBatch(['1', '2'])).toBe('[1,2]');
    expect(serializeBatch([])).toBeUndefined();
  });
});
