// Type tests: compiled by tsc (vitest typecheck mode and `pnpm typecheck`), never run.
import {
  defineContract,
  method,
  notification,
  type RequestOptions,
  type Transport,
} from '@jsonrpc-kit/core';
import * as v from 'valibot';
import { describe, expectTypeOf, it } from 'vitest';
import { createServer } from './server.js';
import type { Connection, Server } from './server-types.js';
import type { ContractImplementation, HandlerContext } from './types.js';

const calculator = defineContract({
  add: method({ params: v.tuple([v.number(), v.number()]), result: v.number() }),
  divide: method({ params: v.object({ a: v.number(), b: v.number() }), result: v.number() }),
  log: notification({ params: v.object({ message: v.string() }) }),
});

declare const server: Server;
declare const transport: Transport;

describe('implement()', () => {
  it('types the implementation from the contract', () => {
    type Impl = ContractImplementation<typeof calculator>;
    expectTypeOf<Parameters<Impl['add']>[0]>().toEqualTypeOf<[number, number]>();
    expectTypeOf<Parameters<Impl['divide']>[0]>().toEqualTypeOf<{ a: number; b: number }>();
    expectTypeOf<Parameters<Impl['log']>[1]>().toEqualTypeOf<HandlerContext>();
    expectTypeOf<ReturnType<Impl['add']>>().toEqualTypeOf<number | Promise<number>>();
    expectTypeOf<ReturnType<Impl['log']>>().toEqualTypeOf<void | Promise<void>>();

    server.implement(calculator, {
      add: async ([a, b]) => a + b,
      divide: ({ a, b }) => a / b,
      log: () => {},
    });
    server.implement(calculator, {
      // @ts-expect-error params are a tuple, not an object
      add: ({ a }) => a,
      divide: ({ a, b }) => a / b,
      log: () => {},
    });
    server.implement(calculator, {
      // @ts-expect-error the result must be a number
      add: () => 'three',
      divide: ({ a, b }) => a / b,
      log: () => {},
    });
    // @ts-expect-error divide is missing
    server.implement(calculator, { add: ([a, b]) => a + b, log: () => {} });
    server.implement(calculator, {
      add: ([a, b]) => a + b,
      // @ts-expect-error b is a number, not a string
      divide: ({ b }: { a: number; b: string }) => b.length,
      log: () => {},
    });
  });

  it('types handlers of method() and notification()', () => {
    server.method<{ a: number }, number>('typed', (p, ctx) => {
      expectTypeOf(p).toEqualTypeOf<{ a: number }>();
      expectTypeOf(ctx.signal).toEqualTypeOf<AbortSignal>();
      return p.a;
    });
    // @ts-expect-error the handler must return a number
    server.method<{ a: number }, number>('typed2', () => 'x');
    server.notification<string[]>('note', (p) => {
      expectTypeOf(p).toEqualTypeOf<string[]>();
    });
  });
});

describe('await using', () => {
  it('disposes a Server and a Connection (close)', async () => {
    expectTypeOf(createServer).returns.toEqualTypeOf<Server>();
    expectTypeOf<Server>().toExtend<AsyncDisposable>();
    expectTypeOf<Connection>().toExtend<AsyncDisposable>();
    await using disposable = createServer();
    await using connection = disposable.connect(transport);
    expectTypeOf(connection).toEqualTypeOf<Connection>();
    expectTypeOf(disposable[Symbol.asyncDispose]).returns.toEqualTypeOf<Promise<void>>();
  });
});

describe('call context', () => {
  it('a handler context is valid request options (to pass the context on)', () => {
    expectTypeOf<HandlerContext>().toExtend<RequestOptions>();
    expectTypeOf<HandlerContext['deadline']>().toEqualTypeOf<number | undefined>();
    expectTypeOf<HandlerContext['meta']>().toEqualTypeOf<
      Readonly<Record<string, unknown>> | undefined
    >();
  });
});
