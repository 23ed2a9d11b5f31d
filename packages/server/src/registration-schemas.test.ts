import { method, subscription } from '@jsonrpc-kit/core';
import * as v from 'valibot';
import { describe, expect, it } from 'vitest';
import { createServer, createSubscriptions, type ServerMethodOptions } from './index.js';

/** A JSON Schema, as a JavaScript caller might pass it where a Standard Schema is expected. */
const jsonSchema = { type: 'object', properties: { a: { type: 'number' } } } as never;
const expected =
  'must be a Standard Schema (a valibot, zod, ArkType… schema, with a "~standard" member)';

describe('schemas given at registration', () => {
  it('method refuses params and result that are not Standard Schemas', () => {
    const server = createServer();
    expect(() => server.method('add', () => 1, { params: jsonSchema })).toThrow(
      new TypeError(`Method "add": params ${expected}, got an object without it`),
    );
    expect(() =>
      server.method('add', () => 1, { result: 'number' } as unknown as ServerMethodOptions),
    ).toThrow(new TypeError(`Method "add": result ${expected}, got string`));
    // Nothing was registered, and a real schema still is accepted.
    expect(server.methods()).toEqual([]);
    expect(() =>
      server.method('add', () => 1, { params: v.object({ a: v.number() }), result: v.number() }),
    ).not.toThrow();
  });

  it('notification refuses params that are not a Standard Schema', () => {
    expect(() => createServer().notification('log', () => {}, { params: jsonSchema })).toThrow(
      new TypeError(`Notification "log": params ${expected}, got an object without it`),
    );
  });

  it('implement refuses a contract whose schemas are not Standard Schemas', () => {
    // A contract built by hand, past defineContract's own check.
    const contract = { add: { ...method(), params: jsonSchema } } as const;
    expect(() => createServer().implement(contract, { add: () => 1 })).toThrow(
      new TypeError(`Method "add": params ${expected}, got an object without it`),
    );
  });

  it('subscriptions refuse params and items that are not Standard Schemas', () => {
    const subscriptions = createSubscriptions(createServer());
    expect(() => subscriptions.subscription('logs', undefined, { params: jsonSchema })).toThrow(
      new TypeError(`Subscription "logs": params ${expected}, got an object without it`),
    );
    const contract = { heads: { ...subscription(), item: null as never } } as const;
    expect(() => subscriptions.implement(contract, { heads: async function* () {} })).toThrow(
      new TypeError(`Subscription "heads": item ${expected}, got null`),
    );
  });
});
