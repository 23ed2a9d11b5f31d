import { defineContract, method } from '@jsonrpc-kit/core';
import { describe, expect, it } from 'vitest';
import { createProxy, createServer, createSubscriptions } from './index.js';
import {
  createMetricsRegistry,
  createTokenBucket,
  logging,
  metrics,
  rateLimit,
} from './middleware/index.js';

/** Options as a JavaScript caller passes them: names the types do not have. */
const loose = (options: Record<string, unknown>): never => options as never;

describe('unknown option names', () => {
  it('createServer names the option that replaced a renamed one', () => {
    expect(() => createServer(loose({ timeout: 1000 }))).toThrow(
      new TypeError(
        'createServer: unknown option "timeout" (renamed: use handlerTimeout (the handlers\' deadline) or peerCallTimeout (the deadline of calls to the peer))',
      ),
    );
    expect(() => createServer(loose({ cancellation: false }))).toThrow(
      /^createServer: unknown option "cancellation" \(renamed: use profile \(defaultProfile, lspProfile, mcpProfile/,
    );
    expect(() => createServer(loose({ requestTimeout: 10 }))).toThrow(
      /^createServer: unknown option "requestTimeout" \(renamed: use peerCallTimeout /,
    );
    expect(() => createServer(loose({ maxRequestBytes: 10 }))).toThrow(
      /^createServer: unknown option "maxRequestBytes" \(renamed: use maxMessageBytes /,
    );
  });

  it('createServer refuses any other unknown name, naming nothing else', () => {
    expect(() => createServer(loose({ maxRequestByte: 10 }))).toThrow(
      new TypeError('createServer: unknown option "maxRequestByte"'),
    );
    // The known names pass, `undefined` values included.
    expect(() =>
      createServer(loose({ handlerTimeout: 5, peerCallTimeout: undefined, profile: false })),
    ).not.toThrow();
  });

  it('createProxy and createSubscriptions check their options too', () => {
    const upstream = { request: async () => 1 as never, notify: async () => {} };
    expect(() => createProxy(upstream, loose({ timeout: 5 }))).toThrow(
      /^createProxy: unknown option "timeout" \(renamed: use handlerTimeout/,
    );
    expect(() => createSubscriptions(createServer(), loose({ queue: 5 }))).toThrow(
      new TypeError('createSubscriptions: unknown option "queue"'),
    );
  });

  it('server.use(contract) points to server.implement', () => {
    const contract = defineContract({ add: method() });
    expect(() => createServer().use(contract as never)).toThrow(
      new TypeError(
        'server.use() takes a middleware function: to serve a contract, use server.implement(contract, implementation)',
      ),
    );
    expect(() => createServer().use(42 as never)).toThrow('A middleware must be a function');
  });

  it('registration options and the middleware factories refuse unknown names too', () => {
    const server = createServer();
    expect(() => server.method('add', () => 1, loose({ schema: {} }))).toThrow(
      new TypeError('Method "add": unknown option "schema"'),
    );
    expect(() => server.notification('log', () => {}, loose({ result: undefined }))).toThrow(
      new TypeError('Notification "log": unknown option "result"'),
    );
    expect(() => server.registerSystem('rpc.x', () => 1, loose({ system: true }))).toThrow(
      new TypeError('System method "rpc.x": unknown option "system"'),
    );
    expect(() =>
      server.implement(defineContract({ add: method() }), { add: () => 1 }, loose({ name: 'x' })),
    ).toThrow(new TypeError('server.implement: unknown option "name"'));
    expect(() =>
      createSubscriptions(server).subscription('heads', undefined, loose({ items: 1 })),
    ).toThrow(new TypeError('Subscription "heads": unknown option "items"'));
    expect(() => logging(loose({ logger: console.log }))).toThrow(
      new TypeError('logging: unknown option "logger"'),
    );
    expect(() => createMetricsRegistry(loose({ bucket: [1] }))).toThrow(
      new TypeError('createMetricsRegistry: unknown option "bucket"'),
    );
    expect(() => metrics(loose({ registry: createMetricsRegistry(), prefix: 'x' }))).toThrow(
      new TypeError('metrics: unknown option "prefix"'),
    );
    expect(() => createTokenBucket(loose({ capacity: 1, refillPerSecond: 1, rate: 1 }))).toThrow(
      new TypeError('createTokenBucket: unknown option "rate"'),
    );
    expect(() => rateLimit(loose({ capacity: 1, refillPerSecond: 1, keyOf: () => 'a' }))).toThrow(
      new TypeError('rateLimit: unknown option "keyOf"'),
    );
    // Nothing was registered by the refused calls.
    const names = server.methods().map((m) => m.name);
    expect(names).not.toContain('add');
    expect(names).not.toContain('log');
    expect(names).not.toContain('rpc.x');
  });
});
