import { type Client, createClient } from '@jsonrpc-kit/client';
import { ConnectionClosedError, createMemoryTransportPair, JsonRpcError } from '@jsonrpc-kit/core';
import { tapTransport } from '@jsonrpc-kit/core/testing';
import { createServer, type Server } from '@jsonrpc-kit/server';
import { createHttpTransport, type HttpListener, listen } from '@jsonrpc-kit/transport-http';
import * as api from '@opentelemetry/api';
import { afterEach, describe, expect, it } from 'vitest';
import { recordingTracer, useContextManager } from '../test/otel.js';
import { traceCall, tracedClient } from './client-tracing.js';
import {
  activeTraceCarrier,
  formatTraceparent,
  type PropagationApiLike,
  traceContextTransport,
  traceHeaders,
} from './trace-propagation.js';
import { type TracerLike, tracing } from './tracing.js';

useContextManager();

const cleanups: (() => unknown)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

const TRACE_ID = '0af7651916cd43dd8448eb211c80319c';
const SPAN_ID = 'b7ad6b7169203331';
const TP = `00-${TRACE_ID}-${SPAN_ID}-01`;

/** Runs `fn` with a remote span context active (what an incoming request would set up). */
function withRemoteParent<T>(fn: () => T, traceState?: string): T {
  const spanContext: api.SpanContext = { traceId: TRACE_ID, spanId: SPAN_ID, traceFlags: 1 };
  if (traceState !== undefined) spanContext.traceState = api.createTraceState(traceState);
  return api.context.with(api.trace.setSpanContext(api.ROOT_CONTEXT, spanContext), fn);
}

function tracedServer(tracer: TracerLike): Server {
  const server = createServer();
  server.use(tracing({ tracer, api }));
  server.method('echo', (params: unknown) => params);
  server.method('add', ([a, b]: [number, number]) => a + b);
  server.method('headers', (_params: unknown, ctx) => ctx.transport.headers ?? null);
  server.method('fail', () => {
    throw new JsonRpcError(42, 'custom');
  });
  return server;
}

describe('formatTraceparent', () => {
  it('formats version 00 with two-digit flags', () => {
    expect(formatTraceparent({ traceId: TRACE_ID, spanId: SPAN_ID, traceFlags: 1 })).toBe(TP);
    expect(formatTraceparent({ traceId: TRACE_ID, spanId: SPAN_ID, traceFlags: 0x8f })).toBe(
      `00-${TRACE_ID}-${SPAN_ID}-8f`,
    );
  });

  it('refuses invalid and all-zero ids', () => {
    for (const [traceId, spanId] of [
      [api.INVALID_TRACEID, SPAN_ID],
      [TRACE_ID, api.INVALID_SPANID],
      [TRACE_ID.toUpperCase(), SPAN_ID],
      [TRACE_ID.slice(1), SPAN_ID],
      [TRACE_ID, `${SPAN_ID}0`],
    ] as const) {
      expect(formatTraceparent({ traceId, spanId, traceFlags: 1 })).toBeUndefined();
    }
  });
});

describe('activeTraceCarrier', () => {
  it('reads the active span context of the API module, with its trace state', () => {
    expect(activeTraceCarrier({ api })).toBeUndefined();
    expect(withRemoteParent(() => activeTraceCarrier({ api }))).toEqual({ traceparent: TP });
    expect(withRemoteParent(() => activeTraceCarrier({ api }), 'vendor=1,other=x')).toEqual({
      traceparent: TP,
      tracestate: 'vendor=1,other=x',
    });
    const invalid = api.trace.setSpanContext(api.ROOT_CONTEXT, api.INVALID_SPAN_CONTEXT);
    expect(api.context.with(invalid, () => activeTraceCarrier({ api }))).toBeUndefined();
  });

  it('takes a getTraceparent callback or an inject function, which win over api', () => {
    expect(activeTraceCarrier({ api, getTraceparent: () => TP })).toEqual({ traceparent: TP });
    expect(activeTraceCarrier({ getTraceparent: () => undefined })).toBeUndefined();
    expect(activeTraceCarrier({ getTraceparent: () => '' })).toBeUndefined();
    expect(
      activeTraceCarrier({
        getTraceparent: () => 'ignored',
        inject: (carrier) => {
          carrier.traceparent = TP;
          carrier.baggage = 'k=v';
        },
      }),
    ).toEqual({ traceparent: TP, baggage: 'k=v' });
    expect(activeTraceCarrier({ inject: () => {} })).toBeUndefined();
  });

  it('swallows failures of the sources and refuses options without one', () => {
    const boom = () => {
      throw new Error('boom');
    };
    expect(activeTraceCarrier({ getTraceparent: boom })).toBeUndefined();
    expect(activeTraceCarrier({ inject: boom })).toBeUndefined();
    const broken: PropagationApiLike = { context: { active: boom }, trace: api.trace };
    expect(activeTraceCarrier({ api: broken })).toBeUndefined();
    expect(() => activeTraceCarrier({})).toThrow(TypeError);
    expect(() => traceHeaders({})).toThrow(TypeError);
    expect(() => traceContextTransport(createMemoryTransportPair()[0], {})).toThrow(TypeError);
  });
});

describe('traceContextTransport over the memory transport', () => {
  function connect(
    serverTracer: TracerLike,
    filter?: (method: string) => boolean,
  ): { client: Client; sent: string[]; clientTracer: ReturnType<typeof recordingTracer> } {
    const clientTracer = recordingTracer();
    const [a, b] = createMemoryTransportPair();
    tracedServer(serverTracer).connect(b);
    const sent: string[] = [];
    const tapped = tapTransport(a, (direction, message) => {
      if (direction === 'sent') sent.push(message);
    });
    const transport = traceContextTransport(tapped, filter ? { api, filter } : { api });
    const client = tracedClient(createClient(transport), { tracer: clientTracer, api });
    cleanups.push(() => client.close());
    return { client, sent, clientTracer };
  }

  it("carries the client span's context in params._meta to the server span", async () => {
    const serverTracer = recordingTracer();
    const { client, sent, clientTracer } = connect(serverTracer);
    const echoed = await client.request('echo', { a: 1 });
    const [clientSpan] = clientTracer.spans;
    const [serverSpan] = serverTracer.spans;
    const own = clientSpan!.spanContext();
    const traceparent = `00-${own.traceId}-${own.spanId}-01`;
    expect(sent).toEqual([
      `{"jsonrpc":"2.0","id":1,"method":"echo","params":{"_meta":{"traceparent":"${traceparent}"},"a":1}}`,
    ]);
    expect(echoed).toEqual({ _meta: { traceparent }, a: 1 });
    expect(clientSpan).toMatchObject({
      name: 'echo',
      kind: api.SpanKind.CLIENT,
      ended: true,
      parent: undefined,
      attributes: { 'rpc.system': 'jsonrpc', 'rpc.method': 'echo', 'rpc.jsonrpc.version': '2.0' },
    });
    expect(serverSpan!.kind).toBe(api.SpanKind.SERVER);
    expect(serverSpan!.parent).toMatchObject({
      traceId: own.traceId,
      spanId: own.spanId,
      isRemote: true,
    });
  });

  it('continues the trace that is active around the call, tracestate included', async () => {
    const serverTracer = recordingTracer();
    const { client, clientTracer } = connect(serverTracer);
    await withRemoteParent(() => client.notify('echo', { n: 1 }), 'vendor=1');
    await client.request('add', [1, 1]); // settles the notification first: one connection, in order
    const [clientSpan] = clientTracer.spans;
    expect(clientSpan!.parent?.traceId).toBe(TRACE_ID);
    expect(serverTracer.spans[0]!.parent).toMatchObject({
      traceId: TRACE_ID,
      spanId: clientSpan!.spanContext().spanId,
    });
    expect(serverTracer.spans[0]!.parent!.traceState?.get('vendor')).toBe('1');
  });

  it('sends by-position params and untraced calls untouched', async () => {
    const serverTracer = recordingTracer();
    const [a, b] = createMemoryTransportPair();
    tracedServer(serverTracer).connect(b);
    const sent: string[] = [];
    const client = createClient(
      traceContextTransport(
        tapTransport(a, (direction, message) => direction === 'sent' && sent.push(message)),
        { api },
      ),
    );
    cleanups.push(() => client.close());
    await client.request('echo', { a: 1 });
    await withRemoteParent(() => client.request('add', [1, 2]));
    expect(sent).toEqual([
      '{"jsonrpc":"2.0","id":1,"method":"echo","params":{"a":1}}',
      '{"jsonrpc":"2.0","id":2,"method":"add","params":[1,2]}',
    ]);
    expect(serverTracer.spans.map((s) => s.parent)).toEqual([undefined, undefined]);
  });

  it('stamps every by-name member of a batch and honours the filter', async () => {
    const serverTracer = recordingTracer();
    const { client, sent } = connect(serverTracer, (method) => method !== 'add');
    const results = await withRemoteParent(() =>
      client.batch((b) => [b.request('echo', { x: 1 }), b.request('add', [1, 2])]),
    );
    expect(results.map((r) => r.ok)).toEqual([true, true]);
    expect(sent).toEqual([
      `[{"jsonrpc":"2.0","id":1,"method":"echo","params":{"_meta":{"traceparent":"${TP}"},"x":1}},` +
        '{"jsonrpc":"2.0","id":2,"method":"add","params":[1,2]}]',
    ]);
    const filtered: string[] = [];
    const only = connect(recordingTracer(), (method) => method === 'add');
    await withRemoteParent(() => only.client.request('echo', { y: 1 }));
    filtered.push(...only.sent);
    expect(filtered[0]).not.toContain('_meta');
  });

  it('records wire and local failures on the client span', async () => {
    const { client, clientTracer } = connect(recordingTracer());
    await expect(client.request('fail', {})).rejects.toMatchObject({ code: 42 });
    await client.close();
    await expect(client.request('echo', {})).rejects.toBeInstanceOf(ConnectionClosedError);
    const [fail, closed] = clientTracer.spans;
    expect(fail!.attributes).toMatchObject({
      'rpc.jsonrpc.error_code': 42,
      'rpc.jsonrpc.error_message': 'custom',
    });
    expect(fail!.status).toEqual({ code: api.SpanStatusCode.ERROR, message: 'custom' });
    expect(fail!.exceptions).toEqual([]);
    expect(closed!.attributes['error.type']).toBe('CONNECTION_CLOSED');
    expect(closed!.exceptions[0]).toBeInstanceOf(ConnectionClosedError);
    expect(clientTracer.spans.every((s) => s.ended)).toBe(true);
  });

  it('lets a throwing filter send the message untraced', async () => {
    const { client, sent } = connect(recordingTracer(), () => {
      throw new Error('boom');
    });
    await expect(withRemoteParent(() => client.request('echo', { a: 1 }))).resolves.toEqual({
      a: 1,
    });
    expect(sent[0]).not.toContain('_meta');
  });
});

describe('traceCall', () => {
  it('ends the span when the call throws synchronously', async () => {
    const tracer = recordingTracer();
    const failing = traceCall({ tracer, api }, 'x', () => {
      throw new TypeError('bad params');
    });
    await expect(failing).rejects.toBeInstanceOf(TypeError);
    expect(tracer.spans[0]).toMatchObject({ ended: true, attributes: { 'error.type': 'Error' } });
  });
});

describe('traceHeaders over real HTTP', () => {
  async function serve(server: Server): Promise<HttpListener> {
    const http = await listen(server, { host: '127.0.0.1', port: 0 });
    cleanups.push(() => http.close());
    return http;
  }

  it("carries the client span's context in the traceparent header to the server span", async () => {
    const serverTracer = recordingTracer();
    const clientTracer = recordingTracer();
    const http = await serve(tracedServer(serverTracer));
    const client = tracedClient(
      createClient(
        createHttpTransport({
          url: http.url,
          headers: traceHeaders({ api, headers: async () => ({ 'x-app': 'demo' }) }),
        }),
      ),
      { tracer: clientTracer, api },
    );
    cleanups.push(() => client.close());
    const headers = (await withRemoteParent(
      () => client.request('headers', [1]),
      'vendor=1',
    )) as Record<string, string>;
    const own = clientTracer.spans[0]!.spanContext();
    expect(own.traceId).toBe(TRACE_ID);
    expect(headers).toMatchObject({
      'x-app': 'demo',
      traceparent: `00-${TRACE_ID}-${own.spanId}-01`,
      tracestate: 'vendor=1',
    });
    expect(serverTracer.spans[0]!.parent).toMatchObject({ traceId: TRACE_ID, spanId: own.spanId });

    // Outside any trace: no span of the caller, yet the client span starts a trace of its own.
    await client.request('add', [1, 2]);
    const second = clientTracer.spans[1]!.spanContext();
    expect(serverTracer.spans[1]!.parent?.traceId).toBe(second.traceId);
  });

  it('sends no trace header outside a trace, and keeps fixed headers', async () => {
    const http = await serve(tracedServer(recordingTracer()));
    const client = createClient(
      createHttpTransport({
        url: http.url,
        headers: traceHeaders({ api, headers: { 'x-app': 'a' } }),
      }),
    );
    cleanups.push(() => client.close());
    const headers = (await client.request('headers')) as Record<string, string>;
    expect(headers['x-app']).toBe('a');
    expect('traceparent' in headers).toBe(false);
    const bare = traceHeaders({ getTraceparent: () => TP })();
    expect(bare).toEqual({ traceparent: TP });
  });
});
