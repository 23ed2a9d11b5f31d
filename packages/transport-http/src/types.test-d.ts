// Type tests: compiled by tsc (vitest typecheck mode and `pnpm typecheck`), never run.
import type { Transport } from '@jsonrpc-kit/core';
import { describe, expectTypeOf, it } from 'vitest';
import { echoServer } from '../test/helpers.js';
import { createFetchHandler, type FetchHandler } from './fetch-handler.js';
import { createHttpTransport as createFetchTransport } from './http-transport.js';
import { createHttpHandler, type NodeHttpHandler } from './node-handler.js';
import {
  createHttpTransport as createNodeTransport,
  type NodeHttpTransportOptions,
} from './node-transport.js';

describe('types', () => {
  it('is typed as a fetch handler', () => {
    expectTypeOf(createFetchHandler(echoServer())).toEqualTypeOf<FetchHandler>();
    expectTypeOf<ReturnType<FetchHandler>>().toEqualTypeOf<Promise<Response>>();
  });

  it('is typed as a Transport with Node options', () => {
    expectTypeOf(createNodeTransport).parameter(0).toEqualTypeOf<NodeHttpTransportOptions>();
    expectTypeOf(createNodeTransport({ url: 'http://x/' })).toEqualTypeOf<Transport>();
    // @ts-expect-error url is required
    createNodeTransport({});
    // @ts-expect-error headers are strings
    createFetchTransport({ url: 'http://x/', headers: { a: 1 } });
  });
});

describe('createHttpHandler: types', () => {
  it('returns a node:http request listener', () => {
    expectTypeOf(createHttpHandler(echoServer())).toEqualTypeOf<NodeHttpHandler>();
    // @ts-expect-error a server needs handle()
    createHttpHandler({});
    // @ts-expect-error cors takes a boolean or options
    createHttpHandler(echoServer(), { cors: 'yes' });
  });
});
