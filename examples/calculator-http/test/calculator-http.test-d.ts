// Type tests: compiled by tsc (vitest typecheck mode and `pnpm typecheck`), never run.
import type { Client } from '@jsonrpc-kit/client';
import { describe, expectTypeOf, it } from 'vitest';
import { calculator } from '../src/contract.js';

declare const client: Client;

describe('calculator types', () => {
  it('types the proxy from the contract', () => {
    const calc = client.contract(calculator);
    expectTypeOf(calc.add).parameters.toEqualTypeOf<[number, number]>();
    expectTypeOf(calc.add).returns.resolves.toEqualTypeOf<number>();
    expectTypeOf(calc.divide).parameters.toEqualTypeOf<[{ dividend: number; divisor: number }]>();
    // @ts-expect-error add takes two numbers by position
    void (() => calc.add({ a: 1, b: 2 }));
    // @ts-expect-error subtract takes { minuend, subtrahend }
    void (() => calc.subtract({ minuend: 1 }));
  });
});
