// Type tests: compiled by tsc (vitest typecheck mode and `pnpm typecheck`), never run.
import * as v from 'valibot';
import { describe, expectTypeOf, it } from 'vitest';
import {
  type DeclaredErrorCode,
  defineContract,
  isDeclaredError,
  type MethodDocs,
  type MethodNames,
  method,
  type NotificationNames,
  notification,
  type ParamsInput,
  type ParamsOutput,
  type ResultInput,
  type ResultOutput,
} from './contract.js';
import { JsonRpcError } from './errors.js';
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

const bank = defineContract({
  withdraw: method({
    params: v.tuple([v.number()]),
    result: v.number(),
    docs: {
      summary: 'Takes money out',
      errors: [
        { code: 4001, message: 'Insufficient funds' },
        { code: 4002, message: 'Account frozen', data: { until: '2027-01-01' } },
      ],
    },
  }),
  balance: method({ result: v.number(), docs: { summary: 'What is left' } }),
  ping: method(),
  audit: method({ result: v.number(), docs: {} as MethodDocs }),
  log: notification({ params: v.object({ message: v.string() }) }),
});

describe('declared errors', () => {
  it('keep their codes in the method type', () => {
    type C = typeof bank;
    expectTypeOf<DeclaredErrorCode<C['withdraw']>>().toEqualTypeOf<4001 | 4002>();
    expectTypeOf<DeclaredErrorCode<C['balance']>>().toBeNever();
    expectTypeOf<DeclaredErrorCode<C['ping']>>().toBeNever();
    expectTypeOf<DeclaredErrorCode<C['log']>>().toBeNever();
    // Docs whose errors are not literal say nothing narrower than a number.
    expectTypeOf<DeclaredErrorCode<C['audit']>>().toEqualTypeOf<number>();
    expectTypeOf(bank.withdraw.docs?.errors?.[1].data).toEqualTypeOf<
      { readonly until: '2027-01-01' } | undefined
    >();
    // The contract is still a contract: its methods are methods.
    expectTypeOf<MethodNames<C>>().toEqualTypeOf<'withdraw' | 'balance' | 'ping' | 'audit'>();
  });

  it('narrow a rejection to the declared codes', () => {
    const error: unknown = new JsonRpcError(4001, 'Insufficient funds');
    if (isDeclaredError(bank.withdraw, error)) {
      expectTypeOf(error.code).toEqualTypeOf<4001 | 4002>();
      expectTypeOf(error).toExtend<JsonRpcError>();
      switch (error.code) {
        case 4001:
          break;
        case 4002:
          break;
        default:
          expectTypeOf(error.code).toBeNever();
      }
      // @ts-expect-error 4003 is not a declared code
      if (error.code === 4003) void error;
    }
    if (isDeclaredError(bank.withdraw, error, 4002)) {
      expectTypeOf(error.code).toEqualTypeOf<4002>();
    }
    // @ts-expect-error 4003 is not declared by withdraw
    isDeclaredError(bank.withdraw, error, 4003);
    if (isDeclaredError(bank.balance, error)) {
      expectTypeOf(error.code).toBeNever();
    }
  });
});
