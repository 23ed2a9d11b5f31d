// Type tests of the matrix's client calls: compiled by tsc (vitest typecheck mode and
// `pnpm typecheck`), never run.
import type { BatchResult, Client } from '@jsonrpc-kit/client';
import { describe, expectTypeOf, it } from 'vitest';
import { calculator } from './matrix-fixtures/server.mjs';

declare const client: Client;

describe('matrix types', () => {
  it('types a batch with a notification by its request entries', async () => {
    const results = await client.batch((b) => [
      b.request<number>('subtract', [5, 3]),
      b.notify('record', { from: 'batch' }),
      b.request('no_such_method'),
      b.request<[string, number]>('get_data'),
    ]);
    expectTypeOf(results[0]).toEqualTypeOf<BatchResult<number>>();
    expectTypeOf(results[2]).toEqualTypeOf<BatchResult<[string, number]>>();
  });

  it('types a contract proxy with a prefix', () => {
    const calc = client.contract(calculator, { prefix: 'calc.' });
    expectTypeOf(calc.add).parameters.toEqualTypeOf<[number, number]>();
    expectTypeOf(calc.add).returns.toEqualTypeOf<Promise<number>>();
    expectTypeOf(calc.log).returns.toEqualTypeOf<Promise<void>>();
    // @ts-expect-error the contract takes numbers
    void calc.add('1', 2);
    // @ts-expect-error the contract names its params
    void calc.divide({ a: 1, b: 2 });
  });
});
