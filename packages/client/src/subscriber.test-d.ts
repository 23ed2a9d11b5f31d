import { defineContract, method, subscription } from '@jsonrpc-kit/core';
import * as v from 'valibot';
import { expectTypeOf, it } from 'vitest';
import type { Client, Subscription } from './index.js';

const chain = defineContract({
  blockNumber: method({ params: v.tuple([]), result: v.string() }),
  heads: subscription({
    params: v.tuple([v.optional(v.boolean())]),
    item: v.object({ number: v.pipe(v.string(), v.transform(Number)) }),
  }),
  untyped: subscription(),
  getLogs: method({ params: v.tuple([v.object({ address: v.string() })]), result: v.string() }),
  logs: subscription({
    params: v.tuple([v.object({ address: v.string() })]),
    item: v.string(),
  }),
});

// Type tests: compiled by tsc (vitest typecheck mode and `pnpm typecheck`), never run.
declare const client: Client;

it('client.subscribe types items by its type parameter', () => {
  const sub = client.subscribe<{ n: number }>(
    'ticks',
    { every: 1 },
    {
      onItem: (item) => expectTypeOf(item).toEqualTypeOf<{ n: number }>(),
    },
  );
  expectTypeOf(sub).toEqualTypeOf<Subscription<{ n: number }>>();
  expectTypeOf(sub.ready).toEqualTypeOf<Promise<string>>();
  expectTypeOf(client.subscribe('x')).toEqualTypeOf<Subscription<unknown>>();
});

it('a contract subscription spreads its params as a method does, then takes its options', async () => {
  const api = client.contract(chain);
  const heads = api.heads(true, { onItem: (head) => expectTypeOf(head.number).toBeNumber() });
  expectTypeOf(heads).toEqualTypeOf<Subscription<{ number: number }>>();
  for await (const head of heads) expectTypeOf(head).toEqualTypeOf<{ number: number }>();
  // The optional place may be left out, and options follow every place.
  expectTypeOf(api.heads()).toEqualTypeOf<Subscription<{ number: number }>>();
  api.heads(undefined, { onItem: (head) => expectTypeOf(head.number).toBeNumber() });
  // @ts-expect-error the params are spread, no longer one tuple value
  api.heads([true]);
  // @ts-expect-error the params are a tuple of an optional boolean
  api.heads('yes');
  // @ts-expect-error the item schema comes from the contract
  api.heads(undefined, { item: v.string() });
  // Methods and subscriptions of the same tuple take the same arguments.
  expectTypeOf<Parameters<typeof api.logs>[0]>().toEqualTypeOf<Parameters<typeof api.getLogs>[0]>();
  api.logs({ address: '0x1' }, { onItem: (log) => expectTypeOf(log).toEqualTypeOf<string>() });
  expectTypeOf(api.untyped(undefined)).toEqualTypeOf<Subscription<unknown>>();
  expectTypeOf(api.blockNumber()).toEqualTypeOf<Promise<string>>();
});
