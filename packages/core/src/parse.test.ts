import { describe, expect, it } from 'vitest';
import { ErrorCode } from './errors.js';
import { classify, type ParsedMessage, parse } from './parse.js';
import { findRawIds, rawIdScanSteps } from './raw-id.js';

function single(text: string): ParsedMessage {
  const result = parse(text);
  if (result.kind === 'batch') throw new Error('expected a single message');
  return result;
}

function invalidCode(text: string): number | undefined {
  const result = single(text);
  return result.kind === 'invalid' ? result.error.code : undefined;
}

describe('parse: text that is not JSON (-32700)', () => {
  it.each([
    '{"jsonrpc": "2.0", "method": "foobar, "params": "bar", "baz]',
    '',
    '   ',
    '{',
    'undefined',
    "{'jsonrpc':'2.0'}",
    '[1,]',
    '\u0000',
  ])('%j is a parse error with id null', (text) => {
    const result = single(text);
    expect(result).toMatchObject({ kind: 'invalid', id: null, error: { code: -32700 } });
  });

  it('a batch that is not JSON is one parse error, not a batch', () => {
    const text =
      '[{"jsonrpc": "2.0", "method": "sum", "params": [1,2,4], "id": "1"},{"jsonrpc": "2.0", "method"]';
    expect(parse(text)).toMatchObject({ kind: 'invalid', error: { code: ErrorCode.ParseError } });
  });
});

describe('parse: the request object (spec section 4)', () => {
  it('jsonrpc must be exactly the string "2.0"', () => {
    for (const version of ['"1.0"', '2.0', '"2"', 'null', '"2.0 "']) {
      expect(invalidCode(`{"jsonrpc":${version},"id":1,"method":"a"}`)).toBe(-32600);
    }
    expect(invalidCode('{"id":1,"method":"a"}')).toBe(-32600);
    expect(single('{"jsonrpc":"2.0","id":1,"method":"a"}').kind).toBe('request');
  });

  it('method must be a string', () => {
    for (const method of ['1', 'null', 'true', '{}', '[]']) {
      expect(invalidCode(`{"jsonrpc":"2.0","id":1,"method":${method}}`)).toBe(-32600);
    }
    // The spec example: {"jsonrpc": "2.0", "method": 1, "params": "bar"}
    expect(single('{"jsonrpc": "2.0", "method": 1, "params": "bar"}')).toMatchObject({
      kind: 'invalid',
      id: null,
      error: { code: -32600, message: 'Invalid Request' },
    });
  });

  it('params may be absent, an array or an object', () => {
    expect(single('{"jsonrpc":"2.0","id":1,"method":"a"}').kind).toBe('request');
    expect(single('{"jsonrpc":"2.0","id":1,"method":"a","params":[]}').kind).toBe('request');
    expect(single('{"jsonrpc":"2.0","id":1,"method":"a","params":{}}').kind).toBe('request');
  });

  it('params of any other type are -32602, answered for requests and silent for notifications', () => {
    for (const params of ['"bar"', '1', 'true', 'null']) {
      expect(single(`{"jsonrpc":"2.0","id":7,"method":"a","params":${params}}`)).toMatchObject({
        kind: 'invalid',
        id: 7,
        silent: false,
        error: { code: -32602 },
      });
      expect(single(`{"jsonrpc":"2.0","method":"a","params":${params}}`)).toMatchObject({
        kind: 'invalid',
        silent: true,
        error: { code: -32602 },
      });
    }
  });

  it('id may be a string, a number or null; anything else is -32600 with id null', () => {
    expect(single('{"jsonrpc":"2.0","id":"abc","method":"a"}')).toMatchObject({
      kind: 'request',
      message: { id: 'abc' },
    });
    expect(single('{"jsonrpc":"2.0","id":-3,"method":"a"}')).toMatchObject({
      kind: 'request',
      message: { id: -3 },
    });
    for (const id of ['true', '{}', '[1]', 'false']) {
      expect(single(`{"jsonrpc":"2.0","id":${id},"method":"a"}`)).toMatchObject({
        kind: 'invalid',
        id: null,
        error: { code: -32600 },
      });
    }
  });

  it('"id": null is a request, a missing id is a notification', () => {
    expect(single('{"jsonrpc":"2.0","id":null,"method":"a"}')).toMatchObject({
      kind: 'request',
      message: { id: null },
    });
    expect(single('{"jsonrpc":"2.0","method":"a"}').kind).toBe('notification');
  });

  it('recovers a valid id for an invalid request', () => {
    expect(single('{"jsonrpc":"1.0","id":"x-1","method":"a"}')).toMatchObject({
      kind: 'invalid',
      id: 'x-1',
      error: { code: -32600 },
    });
  });

  it('a value that is not an object is -32600 with id null', () => {
    for (const text of ['1', '"text"', 'null', 'true']) {
      expect(single(text)).toMatchObject({ kind: 'invalid', id: null, error: { code: -32600 } });
    }
  });

  it('an object with neither method nor result nor error is -32600', () => {
    expect(invalidCode('{"jsonrpc":"2.0","id":1}')).toBe(-32600);
    expect(invalidCode('{}')).toBe(-32600);
  });

  it('prototype-pollution names are ordinary method strings and pollute nothing', () => {
    const result = single(
      '{"jsonrpc":"2.0","id":1,"method":"__proto__","params":{"__proto__":{"x":1}}}',
    );
    expect(result).toMatchObject({ kind: 'request', message: { method: '__proto__' } });
    expect(({} as Record<string, unknown>).x).toBeUndefined();
  });
});

describe('parse: the response object (spec section 5)', () => {
  it('classifies success and error responses', () => {
    expect(single('{"jsonrpc":"2.0","result":19,"id":1}')).toMatchObject({
      kind: 'response',
      message: { result: 19, id: 1 },
    });
    expect(single('{"jsonrpc":"2.0","result":null,"id":1}').kind).toBe('response');
    expect(
      single('{"jsonrpc":"2.0","error":{"code":-32601,"message":"Method not found"},"id":"1"}'),
    ).toMatchObject({ kind: 'response', message: { error: { code: -32601 } } });
    expect(
      single('{"jsonrpc":"2.0","error":{"code":-32700,"message":"Parse error"},"id":null}').kind,
    ).toBe('response');
  });

  it.each([
    [
      'both result and error',
      '{"jsonrpc":"2.0","id":1,"result":1,"error":{"code":1,"message":"x"}}',
    ],
    ['a non-integer code', '{"jsonrpc":"2.0","id":1,"error":{"code":1.5,"message":"x"}}'],
    ['a string code', '{"jsonrpc":"2.0","id":1,"error":{"code":"1","message":"x"}}'],
    ['a missing message', '{"jsonrpc":"2.0","id":1,"error":{"code":1}}'],
    ['an error that is not an object', '{"jsonrpc":"2.0","id":1,"error":"boom"}'],
    ['no id member', '{"jsonrpc":"2.0","result":1}'],
    ['a wrong version', '{"jsonrpc":"1.0","id":1,"result":1}'],
  ])('a response with %s is invalid, flagged as a response, with its id', (_, text) => {
    const result = single(text);
    expect(result.kind).toBe('invalid');
    if (result.kind === 'invalid') expect(result.response).toBe(true);
  });

  it('keeps the id of a malformed response so the caller can fail that call', () => {
    expect(single('{"jsonrpc":"2.0","id":4,"error":"boom"}')).toMatchObject({ id: 4 });
  });
});

describe('parse: batches (spec section 6)', () => {
  it('an empty array is one -32600 with id null', () => {
    expect(parse('[]')).toMatchObject({ kind: 'invalid', id: null, error: { code: -32600 } });
  });

  it('[1] is a batch of one invalid member', () => {
    const result = parse('[1]');
    expect(result.kind).toBe('batch');
    if (result.kind === 'batch') {
      expect(result.messages).toHaveLength(1);
      expect(result.messages[0]).toMatchObject({
        kind: 'invalid',
        id: null,
        error: { code: -32600 },
      });
    }
  });

  it('[1,2,3] is three invalid members', () => {
    const result = parse('[1,2,3]');
    expect(result.kind === 'batch' && result.messages.map((m) => m.kind)).toEqual([
      'invalid',
      'invalid',
      'invalid',
    ]);
  });

  it('classifies the mixed batch of the spec member by member', () => {
    const text = `[
      {"jsonrpc": "2.0", "method": "sum", "params": [1,2,4], "id": "1"},
      {"jsonrpc": "2.0", "method": "notify_hello", "params": [7]},
      {"jsonrpc": "2.0", "method": "subtract", "params": [42,23], "id": "2"},
      {"foo": "boo"},
      {"jsonrpc": "2.0", "method": "foo.get", "params": {"name": "myself"}, "id": "5"},
      {"jsonrpc": "2.0", "method": "get_data", "id": "9"}
    ]`;
    const result = parse(text);
    expect(result.kind === 'batch' && result.messages.map((m) => m.kind)).toEqual([
      'request',
      'notification',
      'request',
      'invalid',
      'request',
      'request',
    ]);
  });

  it('a nested array inside a batch is an invalid member', () => {
    const result = parse('[[{"jsonrpc":"2.0","id":1,"method":"a"}]]');
    expect(result.kind === 'batch' && result.messages[0]?.kind).toBe('invalid');
  });
});

describe('parse: ids are echoed exactly', () => {
  it('keeps the digits of integers beyond 2^53', () => {
    const result = single('{"jsonrpc":"2.0","id":9007199254740993,"method":"a"}');
    expect(result).toMatchObject({ kind: 'request', rawId: '9007199254740993' });
  });

  it('keeps fractional ids as written', () => {
    expect(single('{"jsonrpc":"2.0","id":1.5,"method":"a"}')).toMatchObject({
      kind: 'request',
      message: { id: 1.5 },
      rawId: '1.5',
    });
    expect(single('{"jsonrpc":"2.0","id":0.30000000000000000001,"method":"a"}')).toMatchObject({
      rawId: '0.30000000000000000001',
    });
  });

  it('needs no raw text for safe integers and strings', () => {
    expect(single('{"jsonrpc":"2.0","id":42,"method":"a"}')).toMatchObject({ rawId: undefined });
    expect(single('{"jsonrpc":"2.0","id":"9007199254740993","method":"a"}')).toMatchObject({
      rawId: undefined,
      message: { id: '9007199254740993' },
    });
  });

  it('finds the right id in a batch, past nested ids, strings and escapes', () => {
    const text =
      '[{"jsonrpc":"2.0","id":1,"method":"a","params":{"id":2}},' +
      ' {"method":"b\\"}","params":[{"id":[1,{"x":"]"}]}],"jsonrpc":"2.0","id" : 12345678901234567890123},' +
      '{"jsonrpc":"2.0","\\u0069d":9007199254740995,"method":"c"}]';
    const result = parse(text);
    if (result.kind !== 'batch') throw new Error('expected a batch');
    expect(result.messages[0]).toMatchObject({ rawId: undefined, message: { id: 1 } });
    expect(result.messages[1]).toMatchObject({ rawId: '12345678901234567890123' });
    expect(result.messages[2]).toMatchObject({ rawId: '9007199254740995' });
  });

  it('keeps the last of duplicate id members, as JSON.parse does', () => {
    expect(single('{"jsonrpc":"2.0","id":1,"method":"a","id":9007199254740993}')).toMatchObject({
      rawId: '9007199254740993',
    });
  });

  it('accepts a huge number id that overflows to Infinity by its text', () => {
    expect(single('{"jsonrpc":"2.0","id":1e400,"method":"a"}')).toMatchObject({
      kind: 'request',
      rawId: '1e400',
    });
  });
});

describe('classify', () => {
  it('classifies values that were parsed elsewhere', () => {
    expect(classify({ jsonrpc: '2.0', id: 1, method: 'a' }).kind).toBe('request');
    expect(classify({ jsonrpc: '2.0', method: 'a', params: [1] }).kind).toBe('notification');
    expect(classify({ jsonrpc: '2.0', id: undefined, method: 'a' }).kind).toBe('invalid');
  });

  it('never throws on hostile values', () => {
    const hostile = Object.create(null);
    hostile.jsonrpc = '2.0';
    hostile.method = 'a';
    expect(classify(hostile).kind).toBe('notification');
    expect(classify(new Proxy({}, {})).kind).toBe('invalid');
  });
});

describe('parse: cost of exact ids', () => {
  const member = (i: number): string =>
    `{"jsonrpc":"2.0","method":"m","params":[${i}],"id":${i}.5}`;
  const batch = (n: number): string =>
    `[${Array.from({ length: n }, (_, i) => member(i)).join(',')}]`;
  const stepsOf = (text: string, maxBatchSize?: number): number => {
    const before = rawIdScanSteps();
    parse(text, { maxBatchSize });
    return rawIdScanSteps() - before;
  };

  it('recovers every exact id of a batch in one pass: work grows linearly with the batch', () => {
    const small = stepsOf(batch(500));
    const large = stepsOf(batch(1000));
    expect(small).toBeGreaterThan(0);
    // One pass: twice the members, twice the work (a scan per member would be four times).
    expect(large).toBeLessThanOrEqual(2 * small + 10);
    const result = parse(batch(3));
    expect(
      result.kind === 'batch' && result.messages.map((m) => (m as { rawId?: string }).rawId),
    ).toEqual(['0.5', '1.5', '2.5']);
  });

  it('refuses a batch over maxBatchSize before classifying any member', () => {
    expect(stepsOf(batch(200), 100)).toBe(0);
    expect(parse(batch(200), { maxBatchSize: 100 })).toMatchObject({
      kind: 'invalid',
      id: null,
      error: { code: ErrorCode.BatchTooLarge },
    });
    expect(parse(batch(100), { maxBatchSize: 100 }).kind).toBe('batch');
  });

  it('recovers ids among members of every shape', () => {
    const text =
      '[ 1 , {"id":{"a":[1,"]"]}} , "x" , {"a":"\\"}","id":12345678901234567890} , [ ] , {"id":0.1000000000000000000001} ]';
    expect(findRawIds(text)).toEqual([
      undefined,
      '{"a":[1,"]"]}',
      undefined,
      '12345678901234567890',
      undefined,
      '0.1000000000000000000001',
    ]);
  });
});
