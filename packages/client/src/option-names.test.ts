import { createMemoryTransportPair, defineContract, method } from '@jsonrpc-kit/core';
import { describe, expect, it } from 'vitest';
import { createClient, retry } from './index.js';

/** Options as a JavaScript caller passes them: names the types do not have. */
const loose = (options: Record<string, unknown>): never => options as never;

describe('unknown option names', () => {
  it('createClient names the option that replaced a renamed one', () => {
    expect(() => createClient(createMemoryTransportPair()[0], loose({ timeout: 5 }))).toThrow(
      new TypeError('createClient: unknown option "timeout" (renamed: use callTimeout)'),
    );
    expect(() =>
      createClient(createMemoryTransportPair()[0], loose({ requestTimeout: 5 })),
    ).toThrow(
      new TypeError('createClient: unknown option "requestTimeout" (renamed: use callTimeout)'),
    );
    expect(() =>
      createClient(createMemoryTransportPair()[0], loose({ cancellation: true })),
    ).toThrow(
      /^createClient: unknown option "cancellation" \(renamed: use profile .* and sendCancel: true/,
    );
  });

  it('createClient refuses any other unknown name, in batch options too', () => {
    expect(() => createClient(createMemoryTransportPair()[0], loose({ retries: 3 }))).toThrow(
      new TypeError('createClient: unknown option "retries"'),
    );
    expect(() =>
      createClient(createMemoryTransportPair()[0], loose({ batch: { delay: 5 } })),
    ).toThrow(new TypeError('createClient: batch: unknown option "delay"'));
  });

  it('client.contract refuses unknown option names', async () => {
    const client = createClient(createMemoryTransportPair()[0]);
    const contract = defineContract({ add: method() });
    expect(() => client.contract(contract, loose({ prefx: 'calc.' }))).toThrow(
      new TypeError('client.contract: unknown option "prefx"'),
    );
    await client.close();
  });

  it('client.use(contract) points to client.contract', async () => {
    const client = createClient(createMemoryTransportPair()[0]);
    const contract = defineContract({ add: method() });
    expect(() => client.use(contract as never)).toThrow(
      new TypeError(
        'client.use() takes a middleware function: to call a contract, use client.contract(contract)',
      ),
    );
    await client.close();
  });

  it('client.stub and retry refuse unknown option names', async () => {
    const client = createClient(createMemoryTransportPair()[0]);
    expect(() => client.stub(loose({ prefx: 'calc.' }))).toThrow(
      new TypeError('client.stub: unknown option "prefx"'),
    );
    expect(() => retry(loose({ idempotent: () => true, retries: 3 }))).toThrow(
      new TypeError('retry: unknown option "retries"'),
    );
    expect(() => retry(loose({ idempotent: () => true, attempts: 3 }))).toThrow(
      new TypeError('retry: unknown option "attempts" (renamed: use maxAttempts)'),
    );
    await client.close();
  });
});
