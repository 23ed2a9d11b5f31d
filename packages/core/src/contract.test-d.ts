// Type tests: compiled by tsc (vitest typecheck mode and `pnpm typecheck`), never run.
import * as v from 'valibot';
import { describe, expectTypeOf, it } from 'vitest';
import {
  defineContract,
  type MethodNames,
  method,
  type NotificationNames,
  notification,
  type ParamsInput,
  type ParamsOutput,
  type ResultInput,
  type ResultOutput,
} from './contract.js';
import type { JsonRpcParams } from './messages.js';

const calculator = defineContract({
  add: method({ params: v.tuple([v.number(), v.number()]), result: v.number() }),
  divide: method({ params: v.object({ a: v.number(), b: v.number() }), result: v.number() }),
  parse: method({ params: v.tuple([v.string()]), result: v.pipe(v.string(), v.transform(Number)) }),
  ping: method(),
  log: notification({ params: v.object({ message: v.string() }) }),
});

describe('contracts', () => {
  it('types params and results end to end', () => {
    type C = typeof calculator;
    expectTypeOf<MethodNames<C>>().toEqualTypeOf<'add' | 'divide' | 'parse' | 'ping'>();
    expectTypeOf<NotificationNames<C>>().toEqualTypeOf<'log'>();
    expectTypeOf<ParamsInput<C['add']>>().toEqualTypeOf<[number, number]>();
    expectTypeOf<ParamsInput<C['divide']>>().toEqualTypeOf<{ a: number; b: number }>();
    expectTypeOf<ParamsInput<C['ping']>>().toEqualTypeOf<JsonRpcParams | undefined>();
    expectTypeOf<ParamsOutput<C['log']>>().toEqualTypeOf<{ message: string }>();
    expectTypeOf<ResultInput<C['parse']>>().toEqualTypeOf<string>();
    expectTypeOf<ResultOutput<C['parse']>>().toEqualTypeOf<number>();
    expectTypeOf<ResultOutput<C['ping']>>().toEqualTypeOf<unknown>();
    expectTypeOf<ResultOutput<C['log']>>().toEqualTypeOf<undefined>();
    // @ts-expect-error: 'log' is a notification, not a method
    const wrong: MethodNames<C> = 'log';
    void wrong;
  });
});
