/**
 * The specification's rules beyond its examples: ids echoed exactly, invalid envelopes, reserved
 * and prototype method names, notifications that fail, batches of one and nested batches.
 *
 * @module
 */
import type { ConformanceCase } from '../context.js';
import { err, exchangeCase, ok } from './exchange-case.js';

const ID_OF_INVALID =
  'an invalid Request may be answered with its readable id or with null; the one given is printed';
const PARAMS_NOT_STRUCTURED =
  'params that are not structured fit -32602 (invalid params) and -32600 (invalid Request); the code given is printed';

const subtractWithId = (id: string): string =>
  `{"jsonrpc":"2.0","method":"subtract","params":[42,23],"id":${id}}`;

/** An id that must come back as the same JSON value, digit for digit. */
function idCase(id: string, raw: string, title: string): ConformanceCase {
  return exchangeCase({
    id: `id.${id}`,
    title,
    request: subtractWithId(raw),
    expected: ok(19, raw),
    needs: ['subtract'],
  });
}

/** An id of a type the specification does not allow. */
function badIdCase(id: string, raw: string, title: string): ConformanceCase {
  return exchangeCase({
    id: `id.${id}`,
    title,
    request: subtractWithId(raw),
    expected: err(-32600, 'null'),
    needs: ['subtract'],
  });
}

/** A notification that fails on the server side and must still get no answer. */
function silentCase(id: string, request: string, title: string, needs: ConformanceCase['needs']) {
  return exchangeCase({
    id: `notification.${id}`,
    title,
    request,
    expected: { none: true },
    ...(needs ? { needs } : {}),
  });
}

/** The rules. */
export const RULE_CASES: readonly ConformanceCase[] = [
  exchangeCase({
    id: 'id.null',
    title: 'id null is a request (answered with id null), not a notification',
    request: subtractWithId('null'),
    expected: ok(19, 'null'),
    needs: ['subtract'],
  }),
  idCase('string', '"ünï ✓ 😀"', 'a string id is echoed'),
  idCase('string-escapes', '"a\\"b\\\\c\\u0041\\n"', 'a string id with escapes is echoed'),
  idCase('empty-string', '""', 'an empty string id is echoed'),
  idCase('zero', '0', 'id 0 is echoed (not taken for a missing id)'),
  idCase('beyond-2-53', '9007199254740993', 'an id beyond 2^53 is echoed digit for digit'),
  idCase(
    'beyond-2-53-negative',
    '-9007199254740993',
    'a negative id beyond -2^53 is echoed digit for digit',
  ),
  idCase(
    'beyond-2-64',
    '123456789012345678901234567890',
    'an id beyond 2^64 is echoed digit for digit',
  ),
  idCase('fractional', '1.5', 'a fractional id is echoed, not truncated'),
  badIdCase('object', '{"a":1}', 'an object id: -32600, id null'),
  badIdCase('array', '[1]', 'an array id: -32600, id null'),
  badIdCase('boolean', 'true', 'a boolean id: -32600, id null'),
  exchangeCase({
    id: 'request.no-jsonrpc',
    title: 'a request without "jsonrpc": -32600',
    request: '{"method":"subtract","params":[42,23],"id":10}',
    expected: err(-32600, '10', 'null'),
    needs: ['subtract'],
    ambiguity: ID_OF_INVALID,
  }),
  exchangeCase({
    id: 'request.wrong-version',
    title: 'a request with "jsonrpc": "1.0": -32600',
    request: '{"jsonrpc":"1.0","method":"subtract","params":[42,23],"id":11}',
    expected: err(-32600, '11', 'null'),
    needs: ['subtract'],
    ambiguity: ID_OF_INVALID,
  }),
  exchangeCase({
    id: 'request.version-number',
    title: 'a request with "jsonrpc": 2.0 (a number): -32600',
    request: '{"jsonrpc":2.0,"method":"subtract","params":[42,23],"id":12}',
    expected: err(-32600, '12', 'null'),
    needs: ['subtract'],
    ambiguity: ID_OF_INVALID,
  }),
  exchangeCase({
    id: 'request.no-method',
    title: 'a request without "method": -32600',
    request: '{"jsonrpc":"2.0","params":[42,23],"id":13}',
    expected: err(-32600, '13', 'null'),
    ambiguity: ID_OF_INVALID,
  }),
  exchangeCase({
    id: 'request.params-string',
    title: 'params that are a string: -32602 or -32600',
    request: '{"jsonrpc":"2.0","method":"subtract","params":"bar","id":14}',
    expected: err([-32602, -32600], '14', 'null'),
    needs: ['subtract'],
    ambiguity: `${PARAMS_NOT_STRUCTURED}; ${ID_OF_INVALID}`,
  }),
  exchangeCase({
    id: 'request.params-null',
    title: 'params that are null: -32602 or -32600',
    request: '{"jsonrpc":"2.0","method":"subtract","params":null,"id":15}',
    expected: err([-32602, -32600], '15', 'null'),
    needs: ['subtract'],
    ambiguity: `${PARAMS_NOT_STRUCTURED}; ${ID_OF_INVALID}`,
  }),
  exchangeCase({
    id: 'request.scalar',
    title: 'a JSON text that is a string, not an object: -32600, id null',
    request: '"subtract"',
    expected: err(-32600, 'null'),
  }),
  exchangeCase({
    id: 'method.rpc-reserved',
    title: 'an unknown rpc.* method: -32601',
    request: '{"jsonrpc":"2.0","method":"rpc.conformance.unknown","id":20}',
    expected: err(-32601, '20'),
  }),
  exchangeCase({
    id: 'method.__proto__',
    title: '"__proto__" is not a method: -32601',
    request: '{"jsonrpc":"2.0","method":"__proto__","params":[],"id":21}',
    expected: err(-32601, '21'),
  }),
  exchangeCase({
    id: 'method.constructor',
    title: '"constructor" is not a method: -32601',
    request: '{"jsonrpc":"2.0","method":"constructor","params":[],"id":22}',
    expected: err(-32601, '22'),
  }),
  exchangeCase({
    id: 'method.toString',
    title: '"toString" is not a method: -32601',
    request: '{"jsonrpc":"2.0","method":"toString","params":[],"id":23}',
    expected: err(-32601, '23'),
  }),
  exchangeCase({
    id: 'error.internal',
    title: 'a method that throws: -32603',
    request: '{"jsonrpc":"2.0","method":"crash","id":24}',
    expected: err(-32603, '24'),
    needs: ['crash'],
  }),
  silentCase(
    'invalid-params',
    '{"jsonrpc":"2.0","method":"subtract","params":{"minuend":"x"}}',
    'a notification with bad params is not answered',
    ['subtract'],
  ),
  silentCase(
    'throws',
    '{"jsonrpc":"2.0","method":"crash"}',
    'a notification whose handler throws is not answered',
    ['crash'],
  ),
  silentCase(
    '__proto__',
    '{"jsonrpc":"2.0","method":"__proto__"}',
    'a notification of "__proto__" is not answered',
    undefined,
  ),
  silentCase(
    'rpc-reserved',
    '{"jsonrpc":"2.0","method":"rpc.conformance.unknown"}',
    'a notification of an unknown rpc.* method is not answered',
    undefined,
  ),
  exchangeCase({
    id: 'batch.one',
    title: 'a batch of one request: an array of one response',
    request: '[{"jsonrpc":"2.0","method":"subtract","params":[42,23],"id":30}]',
    expected: { batch: [ok(19, '30')] },
    needs: ['subtract'],
  }),
  exchangeCase({
    id: 'batch.nested',
    title: 'a batch inside a batch: an array of one -32600',
    request: '[[{"jsonrpc":"2.0","method":"subtract","params":[42,23],"id":31}]]',
    expected: { batch: [err(-32600, 'null')] },
    needs: ['subtract'],
  }),
  exchangeCase({
    id: 'batch.invalid-ids',
    title: 'a batch whose members have bad ids: -32600 for each, the others answered',
    request:
      '[{"jsonrpc":"2.0","method":"subtract","params":[42,23],"id":{}},{"jsonrpc":"2.0","method":"subtract","params":[42,23],"id":32}]',
    expected: { batch: [err(-32600, 'null'), ok(19, '32')] },
    needs: ['subtract'],
  }),
];
