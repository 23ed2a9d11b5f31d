import { defineContract, method, subscription } from '@jsonrpc-kit/core';
import * as v from 'valibot';
import { expectTypeOf, it } from 'vitest';
import { createServer, createSubscriptions } from './index.js';

const chain = defineContract({
  blockNumber: method({ params: v.tuple([]), result: v.string() }),
  heads: subscription({
    params: v.object({ full: v.boolean() }),
    item: v.object({ number: v.string() }),
  }),
});

// Type tests: compiled by tsc (vitest typecheck mode and `pnpm typecheck`), never run.
it('implement() types each producer by its subscription schemas', () => {
  const server = createServer();
  const subscriptions = createSubscriptions(server);
  subscriptions.implement(chain, {
    heads: (params, ctx) => {
      expectTypeOf(params).toEqualTypeOf<{ full: boolean }>();
      ctx.emit({ number: '0x1' });
      // @ts-expect-error items follow the item schema
      ctx.emit({ number: 1 });
    },
  });
  // @ts-expect-error every subscription of the contract needs a producer
  subscriptions.implement(chain, {});
  // server.implement() takes only the methods and notifications
  server.implement(chain, { blockNumber: () => '0x1' });
});
