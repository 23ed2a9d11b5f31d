import { createClient } from '@jsonrpc-kit/client';
import { defineContract, method, notification } from '@jsonrpc-kit/core';
import { type OpenRpcDocument, openrpc } from '@jsonrpc-kit/extensions/openrpc';
import { streamCall, streams } from '@jsonrpc-kit/extensions/streams';
import {
  type OpenTelemetryApiLike,
  type RemoteSpanContext,
  type TracerLike,
  tracing,
} from '@jsonrpc-kit/extensions/tracing';
import { createServer } from '@jsonrpc-kit/server';
import { createMetricsRegistry, metrics, rateLimit } from '@jsonrpc-kit/server/middleware';
import { createHttpTransport, type HttpListener, listen } from '@jsonrpc-kit/transport-http';
import * as v from 'valibot';
import { afterEach, describe, expect, it } from 'vitest';

const cleanups: (() => unknown)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

async function serve(server: ReturnType<typeof createServer>): Promise<HttpListener> {
  const http = await listen(server, { host: '127.0.0.1', port: 0 });
  cleanups.push(() => http.close());
  return http;
}

const calculator = defineContract({
  add: method({ params: v.tuple([v.number(), v.number()]), result: v.number() }),
  divide: method({
    params: v.object({ a: v.number(), b: v.number() }),
    result: v.number(),
    description: 'a / b',
  }),
  log: notification({ params: v.object({ message: v.string() }) }),
});

// A stand-in for the parts of `@opentelemetry/api` the middleware uses (contexts as plain maps).
type Ctx = ReadonlyMap<string, unknown>;
const api: OpenTelemetryApiLike = {
  context: {
    active: () => new Map(),
    with: (_context, fn, thisArg, ...args) => fn.call(thisArg, ...args),
  },
  trace: {
    setSpan: (context: Ctx, span: unknown) => new Map(context).set('span', span),
    setSpanContext: (context: Ctx, spanContext: unknown) =>
      new Map(context).set('spanContext', spanContext),
  },
};

describe('extensions over HTTP', () => {
  it('serves rpc.discover to a raw POST and to the client', async () => {
    const server = createServer();
    server.implement(calculator, {
      add: ([a, b]) => a + b,
      divide: ({ a, b }) => a / b,
      log: () => {},
    });
    openrpc(server, { info: { title: 'Calculator', version: '2.1.0' } });
    const http = await serve(server);
    const response = await fetch(http.url, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: '{"jsonrpc":"2.0","id":1,"method":"rpc.discover"}',
    });
    expect(response.status).toBe(200);
    const body = (await response.json()) as { id: number; result: OpenRpcDocument };
    expect(body.id).toBe(1);
    expect(body.result.openrpc).toBe('1.3.2');
    expect(body.result.methods.map((m) => [m.name, m.paramStructure])).toEqual([
      ['add', 'by-position'],
      ['divide', 'either'],
      ['log', 'either'],
    ]);
    expect(body.result.methods[2]).toMatchObject({ 'x-notification': true });

    const client = createClient(createHttpTransport({ url: http.url }));
    cleanups.push(() => client.close());
    const doc = await client.request<OpenRpcDocument>('rpc.discover');
    expect(doc).toEqual(body.result);
  });

  it('continues the caller’s trace from the traceparent header', async () => {
    const spans: { name: string; parent: RemoteSpanContext | undefined; attributes: unknown }[] =
      [];
    const tracer: TracerLike = {
      startSpan(name, options, context) {
        spans.push({
          name,
          parent: (context as Ctx | undefined)?.get('spanContext') as RemoteSpanContext | undefined,
          attributes: options?.attributes,
        });
        return { setAttribute() {}, setStatus() {}, recordException() {}, end() {} };
      },
    };
    const server = createServer();
    server.use(tracing({ tracer, api }));
    server.method('add', ([a, b]: [number, number]) => a + b);
    const http = await serve(server);
    const traceparent = '00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01';
    const client = createClient(
      createHttpTransport({ url: http.url, headers: () => ({ traceparent }) }),
    );
    cleanups.push(() => client.close());
    expect(await client.request('add', [2, 3])).toBe(5);
    expect(spans).toHaveLength(1);
    expect(spans[0]!.parent).toMatchObject({
      traceId: '4bf92f3577b34da6a3ce929d0e0e4736',
      spanId: '00f067aa0ba902b7',
      isRemote: true,
    });
    expect(spans[0]!.attributes).toMatchObject({
      'rpc.system': 'jsonrpc',
      'rpc.method': 'add',
      'rpc.jsonrpc.request_id': '1',
      'network.peer.address': expect.stringContaining('127.0.0.1'),
    });
  });

  it('rate-limits by remote address with -32002 in a 200 body, and counts it', async () => {
    const registry = createMetricsRegistry();
    const server = createServer();
    server.use(metrics({ registry }));
    server.use(rateLimit({ capacity: 2, refillPerSecond: 0.001 }));
    server.method('ping', () => 'pong');
    const http = await serve(server);
    const post = () =>
      fetch(http.url, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: '{"jsonrpc":"2.0","id":1,"method":"ping"}',
      });
    expect((await (await post()).json()) as unknown).toMatchObject({ result: 'pong' });
    expect((await (await post()).json()) as unknown).toMatchObject({ result: 'pong' });
    const limited = await post();
    expect(limited.status).toBe(200);
    expect(await limited.json()).toMatchObject({
      error: { code: -32002, message: 'Rate limit exceeded' },
    });
    expect(registry.snapshot().methods.ping).toMatchObject({
      count: 3,
      errorCodes: { '-32002': 1 },
    });
  });

  it('pulls a stream across stateless exchanges', async () => {
    const server = createServer();
    cleanups.push(streams(server));
    server.method('letters', async function* () {
      yield* ['a', 'b', 'c', 'd', 'e'];
    });
    const http = await serve(server);
    const client = createClient(createHttpTransport({ url: http.url }));
    cleanups.push(() => client.close());
    const seen: string[] = [];
    for await (const letter of streamCall<string>(client, 'letters', undefined, { window: 2 })) {
      seen.push(letter);
    }
    expect(seen).toEqual(['a', 'b', 'c', 'd', 'e']);
  });
});
