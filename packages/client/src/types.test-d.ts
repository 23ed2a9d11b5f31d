import {
  defineContract,
  type JsonRpcError,
  type LocalError,
  type LocalErrorCodeValue,
  method,
  notification,
  type Transport,
} from '@jsonrpc-kit/core';
import * as v from 'valibot';
import { expectTypeOf, it } from 'vitest';
import { type BatchResult, type Client, createClient } from './index.js';

const calculator = defineContract({
  add: method({ params: v.tuple([v.number(), v.number()]), result: v.number() }),
  divide: method({ params: v.object({ a: v.number(), b: v.number() }), result: v.string() }),
  raw: method(),
  log: notification({ params: v.object({ message: v.string() }) }),
});

const optional = defineContract({
  none: method({ params: v.tuple([]), result: v.string() }),
  balance: method({ params: v.tuple([v.string(), v.optional(v.string())]) }),
  list: method({ params: v.object({ cursor: v.optional(v.string()) }) }),
  find: method({ params: v.object({ q: v.string() }) }),
});

// Type tests: compiled by tsc (vitest typecheck mode and `pnpm typecheck`), never run.
declare const client: Client;
declare const transport: Transport;

it('lets arguments that may be left out be left out, and required ones not', () => {
  const api = client.contract(optional);
  void api.none();
  void api.balance('0xa');
  void api.balance('0xa', undefined);
  void api.list();
  void api.list({});
  // @ts-expect-error the address is required
  void api.balance();
  // @ts-expect-error q is required, so the object is too
  void api.find();
});

it('types requests, batches, contract proxies and schema-free proxies', () => {
  // request
  expectTypeOf(client.request('m')).toEqualTypeOf<Promise<unknown>>();
  expectTypeOf(client.request<number>('m', [1])).toEqualTypeOf<Promise<number>>();
  // @ts-expect-error params must be an array or an object
  void client.request('m', 1);
  // @ts-expect-error params must be an array or an object
  void client.request('m', 'text');
  expectTypeOf(client.notify('n')).toEqualTypeOf<Promise<void>>();

  // batch tuples: notifications get no slot
  const results = client.batch((b) => [
    b.request<number>('a'),
    b.notify('n'),
    b.request<string>('b', { x: 1 }),
  ]);
  expectTypeOf(results).toEqualTypeOf<Promise<[BatchResult<number>, BatchResult<string>]>>();
  const none = client.batch((b) => [b.notify('n')]);
  expectTypeOf(none).toEqualTypeOf<Promise<[]>>();
  const many = client.batch((b) => [1, 2, 3].map((n) => b.request<number>('m', [n])));
  expectTypeOf(many).toEqualTypeOf<Promise<BatchResult<number>[]>>();
  void results.then(([first]) => {
    if (first.ok) expectTypeOf(first.value).toEqualTypeOf<number>();
    else {
      expectTypeOf(first.error).toEqualTypeOf<JsonRpcError | LocalError>();
      // The documented pattern: match on `error.code`, no guard needed.
      expectTypeOf(first.error.code).toEqualTypeOf<number | LocalErrorCodeValue>();
      expectTypeOf(first.error.method).toEqualTypeOf<string | undefined>();
    }
  });
  // @ts-expect-error the builder returns entries, not numbers
  void client.batch(() => [1]);

  // contract proxies
  const calc = client.contract(calculator);
  expectTypeOf(calc.add).toEqualTypeOf<(a: number, b: number) => Promise<number>>();
  expectTypeOf(calc.add(1, 2)).toEqualTypeOf<Promise<number>>();
  expectTypeOf(calc.divide({ a: 1, b: 2 })).toEqualTypeOf<Promise<string>>();
  expectTypeOf(calc.log({ message: 'x' })).toEqualTypeOf<Promise<void>>();
  expectTypeOf(calc.raw()).toEqualTypeOf<Promise<unknown>>();
  // @ts-expect-error wrong param type
  void calc.add('1', 2);
  // @ts-expect-error wrong arity
  void calc.add(1);
  // @ts-expect-error wrong arity
  void calc.add(1, 2, 3);
  // @ts-expect-error missing member
  void calc.divide({ a: 1 });
  // @ts-expect-error object schema takes one object, not spread arguments
  void calc.divide(1, 2);
  // @ts-expect-error wrong notification params
  void calc.log({ message: 1 });
  // @ts-expect-error no such method
  void calc.multiply(1, 2);
  // @ts-expect-error the result is a number, not a string
  const wrong: Promise<string> = calc.add(1, 2);
  void wrong;

  // schema-free proxies
  interface Api {
    add(a: number, b: number): number;
    now(): Promise<Date>;
    version: string;
  }
  const api = client.stub<Api>();
  expectTypeOf(api.add).toEqualTypeOf<(a: number, b: number) => Promise<number>>();
  expectTypeOf(api.now).toEqualTypeOf<() => Promise<Date>>();
  // @ts-expect-error not a method
  void api.version;
  // @ts-expect-error wrong argument
  void api.add(1, '2');
});

it('creates a Client that `await using` closes', async () => {
  expectTypeOf(createClient).returns.toEqualTypeOf<Client>();
  expectTypeOf(client.pending).toEqualTypeOf<number>();
  expectTypeOf<Client>().toExtend<AsyncDisposable>();
  await using disposable = createClient(transport);
  expectTypeOf(disposable[Symbol.asyncDispose]).returns.toEqualTypeOf<Promise<void>>();
});
