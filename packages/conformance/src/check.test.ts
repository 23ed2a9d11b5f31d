import { describe, expect, it } from 'vitest';
import { judge, readEnvelope } from './check.js';

const answered = (...messages: string[]) => ({ messages });

describe('readEnvelope', () => {
  it.each([
    ['{"id":1,"result":1}', '"jsonrpc" is undefined'],
    ['{"jsonrpc":"1.0","id":1,"result":1}', '"jsonrpc" is "1.0"'],
    ['{"jsonrpc":"2.0","result":1}', 'no "id" member'],
    ['{"jsonrpc":"2.0","id":{},"result":1}', '"id" is {}'],
    [
      '{"jsonrpc":"2.0","id":1,"result":1,"error":{"code":1,"message":""}}',
      'both "result" and "error"',
    ],
    ['{"jsonrpc":"2.0","id":1}', 'neither "result" nor "error"'],
    ['{"jsonrpc":"2.0","id":1,"error":"bad"}', '"error" is "bad"'],
    [
      '{"jsonrpc":"2.0","id":1,"error":{"code":1.5,"message":""}}',
      '"error.code" is 1.5, not an integer',
    ],
    ['{"jsonrpc":"2.0","id":1,"error":{"code":1}}', '"error.message" is undefined'],
    ['{"jsonrpc":"2.0",', 'not JSON: {"jsonrpc":"2.0",'],
    ['[1]', 'not a response object: [1]'],
  ])('refuses %s', (text, problem) => {
    expect(readEnvelope(text)).toBe(problem);
  });

  it('reads the raw id and notes extra members', () => {
    expect(readEnvelope('{"jsonrpc":"2.0","id":9007199254740993,"result":null,"extra":1}')).toEqual(
      {
        rawId: '9007199254740993',
        hasResult: true,
        result: null,
        code: undefined,
        notes: ['extra members extra'],
      },
    );
  });
});

describe('judge', () => {
  it('passes an exact answer and fails a rounded id', () => {
    const expected = { ids: ['9007199254740993'], result: 19 };
    expect(
      judge(answered('{"jsonrpc":"2.0","id":9007199254740993,"result":19}'), expected),
    ).toEqual({
      status: 'pass',
      detail: 'result 19, id 9007199254740993',
    });
    expect(
      judge(answered('{"jsonrpc":"2.0","id":9007199254740992,"result":19}'), expected),
    ).toEqual({
      status: 'fail',
      detail: 'id 9007199254740992, expected 9007199254740993',
    });
  });

  it('says which of the allowed answers the target gave', () => {
    const expected = { ids: ['10', 'null'], codes: [-32600] };
    expect(
      judge(answered('{"jsonrpc":"2.0","id":null,"error":{"code":-32600,"message":"x"}}'), expected)
        .detail,
    ).toBe('error -32600, id null (id null of 10/null)');
    expect(
      judge(answered('{"jsonrpc":"2.0","id":10,"error":{"code":-32601,"message":"x"}}'), expected),
    ).toEqual({
      status: 'fail',
      detail: 'error -32601, expected -32600',
    });
  });

  it('requires silence where nothing is to be answered, and an answer elsewhere', () => {
    expect(judge(answered(), { none: true })).toEqual({
      status: 'pass',
      detail: 'nothing answered',
    });
    expect(
      judge(answered('{"jsonrpc":"2.0","id":null,"error":{"code":-32601,"message":"x"}}'), {
        none: true,
      }).status,
    ).toBe('fail');
    expect(judge({ messages: [], trouble: 'the connection closed' }, { none: true })).toEqual({
      status: 'fail',
      detail: 'the connection closed',
    });
    expect(judge(answered(), { ids: ['1'], result: 1 })).toEqual({
      status: 'fail',
      detail: 'nothing answered',
    });
  });

  it('matches batch answers by id in any order and says whether the order was kept', () => {
    const batch = {
      batch: [
        { ids: ['"1"'], result: 7 },
        { ids: ['null'], codes: [-32600] },
        { ids: ['"9"'], result: ['hello', 5] },
      ],
    };
    const a = '{"jsonrpc":"2.0","id":"1","result":7}';
    const b = '{"jsonrpc":"2.0","id":null,"error":{"code":-32600,"message":"Invalid Request"}}';
    const c = '{"jsonrpc":"2.0","id":"9","result":["hello",5]}';
    expect(judge(answered(`[${a},${b},${c}]`), batch).detail).toBe('3 responses, in request order');
    expect(judge(answered(`[${c},${a},${b}]`), batch).detail).toBe(
      '3 responses, reordered (allowed)',
    );
    expect(judge(answered(`[${a},${c}]`), batch).status).toBe('fail');
    expect(judge(answered(`[${a},${a},${c}]`), batch).detail).toMatch(
      /^no response for error -32600, id null/,
    );
    expect(judge(answered(b), { batch: [batch.batch[1]!] })).toEqual({
      status: 'fail',
      detail: 'one response instead of an array: error -32600, id null',
    });
    expect(judge(answered(`[${b}]`), { ids: ['null'], codes: [-32600] }).status).toBe('fail');
  });

  it('fails several messages for one request', () => {
    const a = '{"jsonrpc":"2.0","id":1,"result":1}';
    expect(judge(answered(a, a), { ids: ['1'], result: 1 }).detail).toMatch(/^2 messages for one/);
  });
});
