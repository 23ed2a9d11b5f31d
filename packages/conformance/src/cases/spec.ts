/**
 * Section 7 of the JSON-RPC 2.0 specification: every example, sent as the specification writes it
 * (whitespace included), with the answer it shows.
 *
 * @module
 */
import type { ConformanceCase } from '../context.js';
import { err, exchangeCase, ok } from './exchange-case.js';

const BATCH_ORDER = 'batch answers may come in any order; the order given is printed';

/** The specification's examples. */
export const SPEC_CASES: readonly ConformanceCase[] = [
  exchangeCase({
    id: 'spec.positional-params',
    title: 'rpc call with positional parameters',
    request: '{"jsonrpc": "2.0", "method": "subtract", "params": [42, 23], "id": 1}',
    expected: ok(19, '1'),
    needs: ['subtract'],
  }),
  exchangeCase({
    id: 'spec.positional-params-reversed',
    title: 'rpc call with positional parameters, reversed',
    request: '{"jsonrpc": "2.0", "method": "subtract", "params": [23, 42], "id": 2}',
    expected: ok(-19, '2'),
    needs: ['subtract'],
  }),
  exchangeCase({
    id: 'spec.named-params',
    title: 'rpc call with named parameters',
    request:
      '{"jsonrpc": "2.0", "method": "subtract", "params": {"subtrahend": 23, "minuend": 42}, "id": 3}',
    expected: ok(19, '3'),
    needs: ['subtract'],
  }),
  exchangeCase({
    id: 'spec.named-params-reordered',
    title: 'rpc call with named parameters in another order',
    request:
      '{"jsonrpc": "2.0", "method": "subtract", "params": {"minuend": 42, "subtrahend": 23}, "id": 4}',
    expected: ok(19, '4'),
    needs: ['subtract'],
  }),
  exchangeCase({
    id: 'spec.notification',
    title: 'a notification is not answered',
    request: '{"jsonrpc": "2.0", "method": "update", "params": [1,2,3,4,5]}',
    expected: { none: true },
    needs: ['update'],
  }),
  exchangeCase({
    id: 'spec.notification-unknown-method',
    title: 'a notification of a non-existent method is not answered',
    request: '{"jsonrpc": "2.0", "method": "foobar"}',
    expected: { none: true },
    needs: ['foobar'],
  }),
  exchangeCase({
    id: 'spec.method-not-found',
    title: 'rpc call of a non-existent method: -32601',
    request: '{"jsonrpc": "2.0", "method": "foobar", "id": "1"}',
    expected: err(-32601, '"1"'),
    needs: ['foobar'],
  }),
  exchangeCase({
    id: 'spec.parse-error',
    title: 'rpc call with invalid JSON: -32700, id null',
    request: '{"jsonrpc": "2.0", "method": "foobar, "params": "bar", "baz]',
    expected: err(-32700, 'null'),
  }),
  exchangeCase({
    id: 'spec.invalid-request',
    title: 'rpc call with an invalid Request object: -32600, id null',
    request: '{"jsonrpc": "2.0", "method": 1, "params": "bar"}',
    expected: err(-32600, 'null'),
  }),
  exchangeCase({
    id: 'spec.batch-parse-error',
    title: 'rpc call batch with invalid JSON: one -32700, id null',
    request:
      '[\n  {"jsonrpc": "2.0", "method": "sum", "params": [1,2,4], "id": "1"},\n  {"jsonrpc": "2.0", "method"\n]',
    expected: err(-32700, 'null'),
  }),
  exchangeCase({
    id: 'spec.empty-batch',
    title: 'rpc call with an empty Array: one -32600, not an array',
    request: '[]',
    expected: err(-32600, 'null'),
  }),
  exchangeCase({
    id: 'spec.invalid-batch-one',
    title: 'rpc call with an invalid batch [1]: an array of one -32600',
    request: '[1]',
    expected: { batch: [err(-32600, 'null')] },
  }),
  exchangeCase({
    id: 'spec.invalid-batch',
    title: 'rpc call with an invalid batch [1,2,3]: three -32600',
    request: '[1,2,3]',
    expected: { batch: [err(-32600, 'null'), err(-32600, 'null'), err(-32600, 'null')] },
  }),
  exchangeCase({
    id: 'spec.batch',
    title: 'rpc call batch: results, a notification, an invalid member, an unknown method',
    request: `[
        {"jsonrpc": "2.0", "method": "sum", "params": [1,2,4], "id": "1"},
        {"jsonrpc": "2.0", "method": "notify_hello", "params": [7]},
        {"jsonrpc": "2.0", "method": "subtract", "params": [42,23], "id": "2"},
        {"foo": "boo"},
        {"jsonrpc": "2.0", "method": "foo.get", "params": {"name": "myself"}, "id": "5"},
        {"jsonrpc": "2.0", "method": "get_data", "id": "9"}
    ]`,
    expected: {
      batch: [
        ok(7, '"1"'),
        ok(19, '"2"'),
        err(-32600, 'null'),
        err(-32601, '"5"'),
        ok(['hello', 5], '"9"'),
      ],
    },
    needs: ['sum', 'notify_hello', 'subtract', 'get_data'],
    ambiguity: BATCH_ORDER,
  }),
  exchangeCase({
    id: 'spec.batch-all-notifications',
    title: 'rpc call batch of notifications only: nothing is answered',
    request:
      '[\n  {"jsonrpc": "2.0", "method": "notify_sum", "params": [1,2,4]},\n  {"jsonrpc": "2.0", "method": "notify_hello", "params": [7]}\n]',
    expected: { none: true },
    needs: ['notify_sum', 'notify_hello'],
  }),
];
