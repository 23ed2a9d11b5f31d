/**
 * The exchanges every transport must answer the same way: the JSON-RPC 2.0 specification's
 * section 7 examples (verbatim text, whitespace included) and the conformance methods.
 */

/** One exchange: raw request text and the answer's shape (`undefined`: nothing is answered). */
export interface Case {
  readonly name: string;
  readonly request: string;
  readonly answer: unknown;
}

const err = (code: number, id: string | number | null) => ({ jsonrpc: '2.0', id, error: { code } });
const ok = (result: unknown, id: string | number | null) => ({ jsonrpc: '2.0', id, result });

export const SPEC_CASES: readonly Case[] = [
  {
    name: 'spec: positional params',
    request: '{"jsonrpc": "2.0", "method": "subtract", "params": [42, 23], "id": 1}',
    answer: ok(19, 1),
  },
  {
    name: 'spec: positional params, reversed',
    request: '{"jsonrpc": "2.0", "method": "subtract", "params": [23, 42], "id": 2}',
    answer: ok(-19, 2),
  },
  {
    name: 'spec: named params',
    request:
      '{"jsonrpc": "2.0", "method": "subtract", "params": {"subtrahend": 23, "minuend": 42}, "id": 3}',
    answer: ok(19, 3),
  },
  {
    name: 'spec: named params, other order',
    request:
      '{"jsonrpc": "2.0", "method": "subtract", "params": {"minuend": 42, "subtrahend": 23}, "id": 4}',
    answer: ok(19, 4),
  },
  {
    name: 'spec: notification',
    request: '{"jsonrpc": "2.0", "method": "update", "params": [1,2,3,4,5]}',
    answer: undefined,
  },
  {
    name: 'spec: notification of an unknown method',
    request: '{"jsonrpc": "2.0", "method": "foobar"}',
    answer: undefined,
  },
  {
    name: 'spec: non-existent method',
    request: '{"jsonrpc": "2.0", "method": "foobar", "id": "1"}',
    answer: err(-32601, '1'),
  },
  {
    name: 'spec: invalid JSON',
    request: '{"jsonrpc": "2.0", "method": "foobar, "params": "bar", "baz]',
    answer: err(-32700, null),
  },
  {
    name: 'spec: invalid request object',
    request: '{"jsonrpc": "2.0", "method": 1, "params": "bar"}',
    answer: err(-32600, null),
  },
  {
    name: 'spec: batch, invalid JSON',
    request:
      '[\n  {"jsonrpc": "2.0", "method": "sum", "params": [1,2,4], "id": "1"},\n  {"jsonrpc": "2.0", "method"\n]',
    answer: err(-32700, null),
  },
  { name: 'spec: empty array', request: '[]', answer: err(-32600, null) },
  { name: 'spec: invalid batch, not empty', request: '[1]', answer: [err(-32600, null)] },
  {
    name: 'spec: invalid batch',
    request: '[1,2,3]',
    answer: [err(-32600, null), err(-32600, null), err(-32600, null)],
  },
  {
    name: 'spec: mixed batch',
    request: `[
        {"jsonrpc": "2.0", "method": "sum", "params": [1,2,4], "id": "1"},
        {"jsonrpc": "2.0", "method": "notify_hello", "params": [7]},
        {"jsonrpc": "2.0", "method": "subtract", "params": [42,23], "id": "2"},
        {"foo": "boo"},
        {"jsonrpc": "2.0", "method": "foo.get", "params": {"name": "myself"}, "id": "5"},
        {"jsonrpc": "2.0", "method": "get_data", "id": "9"}
    ]`,
    answer: [ok(7, '1'), ok(19, '2'), err(-32600, null), err(-32601, '5'), ok(['hello', 5], '9')],
  },
  {
    name: 'spec: batch of notifications',
    request:
      '[\n  {"jsonrpc": "2.0", "method": "notify_sum", "params": [1,2,4]},\n  {"jsonrpc": "2.0", "method": "notify_hello", "params": [7]}\n]',
    answer: undefined,
  },
];

export const METHOD_CASES: readonly Case[] = [
  {
    name: 'sum of nothing',
    request: '{"jsonrpc":"2.0","method":"sum","params":[],"id":1}',
    answer: ok(0, 1),
  },
  {
    name: 'sum by name is invalid params',
    request: '{"jsonrpc":"2.0","method":"sum","params":{"a":1},"id":2}',
    answer: err(-32602, 2),
  },
  {
    name: 'subtract with a string is invalid params',
    request: '{"jsonrpc":"2.0","method":"subtract","params":["42",23],"id":3}',
    answer: err(-32602, 3),
  },
  {
    name: 'echo returns object params unchanged',
    request: '{"jsonrpc":"2.0","method":"echo","params":{"a":[1,{"b":null}],"ü":"✓ 😀"},"id":"e"}',
    answer: ok({ a: [1, { b: null }], ü: '✓ 😀' }, 'e'),
  },
  {
    name: 'echo returns array params unchanged',
    request: '{"jsonrpc":"2.0","method":"echo","params":[1,"two",false,null],"id":5}',
    answer: ok([1, 'two', false, null], 5),
  },
  {
    name: 'echo without params returns null',
    request: '{"jsonrpc":"2.0","method":"echo","id":6}',
    answer: ok(null, 6),
  },
  {
    name: 'get_data',
    request: '{"jsonrpc":"2.0","method":"get_data","id":7}',
    answer: ok(['hello', 5], 7),
  },
  {
    name: 'sleep by name',
    request: '{"jsonrpc":"2.0","method":"sleep","params":{"ms":20},"id":8}',
    answer: ok(20, 8),
  },
  {
    name: 'sleep by position',
    request: '{"jsonrpc":"2.0","method":"sleep","params":[1],"id":9}',
    answer: ok(1, 9),
  },
  {
    name: 'sleep with a negative time is invalid params',
    request: '{"jsonrpc":"2.0","method":"sleep","params":{"ms":-1},"id":10}',
    answer: err(-32602, 10),
  },
  {
    name: 'fail throws the application error',
    request:
      '{"jsonrpc":"2.0","method":"fail","params":{"code":1001,"message":"Division by zero","data":{"x":1}},"id":11}',
    answer: {
      jsonrpc: '2.0',
      id: 11,
      error: { code: 1001, message: 'Division by zero', data: { x: 1 } },
    },
  },
  {
    name: 'fail without a code is invalid params',
    request: '{"jsonrpc":"2.0","method":"fail","params":{"message":"x"},"id":12}',
    answer: err(-32602, 12),
  },
  {
    name: 'crash is an internal error',
    request: '{"jsonrpc":"2.0","method":"crash","id":13}',
    answer: { jsonrpc: '2.0', id: 13, error: { code: -32603, message: 'Internal error' } },
  },
  {
    name: 'notify_hello is a notification',
    request: '{"jsonrpc":"2.0","method":"notify_hello","params":[7]}',
    answer: undefined,
  },
  {
    name: 'prototype names are not methods',
    request:
      '[{"jsonrpc":"2.0","method":"__proto__","id":1},{"jsonrpc":"2.0","method":"toString","id":2},{"jsonrpc":"2.0","method":"constructor","id":3}]',
    answer: [err(-32601, 1), err(-32601, 2), err(-32601, 3)],
  },
  {
    name: 'an id of null is a request, not a notification',
    request: '{"jsonrpc":"2.0","method":"get_data","id":null}',
    answer: ok(['hello', 5], null),
  },
  {
    name: 'params that are neither array nor object',
    request: '{"jsonrpc":"2.0","method":"echo","params":"bar","id":14}',
    answer: err(-32602, 14),
  },
];

/** Raw ids that must come back digit for digit. */
export const EXACT_IDS: readonly string[] = [
  '9007199254740993',
  '-9007199254740993',
  '1.5',
  '"ünï"',
];

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/**
 * Reduces an answer to what the cases pin down: errors keep only their `code` unless the case
 * names more. Also checks the response envelope strictly.
 */
export function shapeLike(actual: unknown, expected: unknown): unknown {
  if (Array.isArray(expected) && Array.isArray(actual)) {
    return actual.map((item, i) => shapeLike(item, expected[i]));
  }
  if (!isRecord(actual)) return actual;
  const keys = Object.keys(actual).sort().join(',');
  if (keys !== 'error,id,jsonrpc' && keys !== 'id,jsonrpc,result') {
    return { badEnvelope: keys };
  }
  if (isRecord(actual.error) && isRecord(expected) && isRecord(expected.error)) {
    const error: Record<string, unknown> = {};
    for (const key of Object.keys(expected.error)) error[key] = actual.error[key];
    if (typeof actual.error.message !== 'string') error.badMessage = actual.error.message;
    return { ...actual, error };
  }
  return actual;
}
