// Type tests: compiled by tsc (vitest typecheck mode and `pnpm typecheck`), never run.
import * as v from 'valibot';
import { describe, expectTypeOf, it } from 'vitest';
import type { Server } from './server-types.js';

declare const server: Server;

describe('method() typed by its schemas', () => {
  it('gives the handler the params schema output type, never any', () => {
    server.method(
      'add',
      (params) => {
        expectTypeOf(params).not.toBeAny();
        expectTypeOf(params).toEqualTypeOf<[number, number]>();
        return params[0] + params[1];
      },
      { params: v.tuple([v.number(), v.number()]), result: v.number() },
    );
    server.method(
      'since',
      ({ when }) => {
        expectTypeOf(when).not.toBeAny();
        // The output type: the schema transforms the string into a Date.
        expectTypeOf(when).toEqualTypeOf<Date>();
        return when.getTime();
      },
      {
        params: v.object({
          when: v.pipe(
            v.string(),
            v.transform((s) => new Date(s)),
          ),
        }),
      },
    );
  });

  it('makes the handler return the result schema input type', () => {
    server.method('answer', () => 42, { result: v.number() });
    server.method('answer', async () => 42, { result: v.number() });
    // @ts-expect-error the result schema expects a number
    server.method('answer', () => 'forty-two', { result: v.number() });
    server.method(
      'add',
      // @ts-expect-error the handler returns a number, the result schema expects a string
      ([a, b]) => a + b,
      { params: v.tuple([v.number(), v.number()]), result: v.string() },
    );
  });

  it('types notification handlers by their params schema', () => {
    server.notification(
      'log',
      (params) => {
        expectTypeOf(params).not.toBeAny();
        expectTypeOf(params).toEqualTypeOf<{ message: string }>();
      },
      { params: v.object({ message: v.string() }) },
    );
  });

  it('keeps explicit type arguments and untyped handlers as before', () => {
    server.method<[number, number], number>('add', ([a, b]) => a + b, {
      params: v.tuple([v.number(), v.number()]),
    });
    server.method('subtract', ([a, b]: [number, number]) => a - b);
    server.method('raw', (params) => {
      expectTypeOf(params).toBeAny();
    });
  });
});
