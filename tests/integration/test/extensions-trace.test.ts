import { AsyncLocalStorage } from 'node:async_hooks';
import { randomBytes } from 'node:crypto';
import { createClient } from '@jsonrpc-kit/client';
import { tapTransport } from '@jsonrpc-kit/core/testing';
import {
  type OpenTelemetryApiLike,
  type PropagationApiLike,
  type SpanContextLike,
  type SpanLike,
  type TracerLike,
  traceContextTransport,
  tracedClient,
  traceHeaders,
  tracing,
} from '@jsonrpc-kit/extensions/tracing';
import { type Connection, createServer, type Server } from '@jsonrpc-kit/server';
import { createHttpTransport, listen } from '@jsonrpc-kit/transport-http';
import {
  createWebSocketServer,
  createWebSocketTransport,
  type JsonRpcWebSocketServer,
} from '@jsonrpc-kit/transport-ws';
import { afterEach, describe, expect, it } from 'vitest';

const cleanups: (() => unknown)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) {
    try {
      await cleanup();
    } catch {
      // Already closed.
    }
  }
});

// A stand-in for the parts of `@opentelemetry/api` that tracing and propagation use, with the
// active context kept in AsyncLocalStorage as the OpenTelemetry Node context manager does.
type Ctx = ReadonlyMap<string, unknown>;
const ROOT: Ctx = new Map();
const storage = new AsyncLocalStorage<Ctx>();

interface RecordedSpan extends SpanLike {
  readonly name: string;
  readonly kind: number | undefined;
  readonly parent: SpanContextLike | undefined;
  readonly context: SpanContextLike;
}

const traceState = (raw: string) => ({ serialize: () => raw, raw });

const api: OpenTelemetryApiLike & PropagationApiLike = {
  context: {
    active: () => storage.getStore() ?? ROOT,
    with: (context, fn, thisArg, ...args) => storage.run(context, () => fn.call(thisArg, ...args)),
  },
  trace: {
    setSpan: (context: Ctx, span: unknown) => new Map(context).set('span', span),
    setSpanContext: (context: Ctx, spanContext: unknown) =>
      new Map(context).set('spanContext', spanContext),
    getSpanContext: (context: Ctx) =>
      (context.get('span') as RecordedSpan | undefined)?.context ??
      (context.get('spanContext') as SpanContextLike | undefined),
  },
  createTraceState: (raw = '') => traceState(raw),
};

function recordingTracer(): TracerLike & { spans: RecordedSpan[] } {
  const spans: RecordedSpan[] = [];
  return {
    spans,
    startSpan(name, options, context) {
      const parent = context === undefined ? undefined : api.trace.getSpanContext(context);
      const span: RecordedSpan = {
        name,
        kind: options?.kind,
        parent,
        context: {
          traceId: parent?.traceId ?? randomBytes(16).toString('hex'),
          spanId: randomBytes(8).toString('hex'),
          traceFlags: 1,
          traceState: parent?.traceState,
        },
        setAttribute: () => span,
        setStatus: () => span,
        recordException: () => {},
        end: () => {},
      };
      spans.push(span);
      return span;
    },
  };
}

const SPAN_KIND_SERVER = 1;
const SPAN_KIND_CLIENT = 2;
const TRACE_ID = '4bf92f3577b34da6a3ce929d0e0e4736';

/** Runs `fn` under a span of the application (an incoming request's, say). */
function inTrace<T>(fn: () => T): T {
  const parent = { traceId: TRACE_ID, spanId: '00f067aa0ba902b7', traceFlags: 1 };
  return api.context.with(api.trace.setSpanContext(ROOT, parent), fn);
}

function tracedServer(tracer: TracerLike): Server {
  const server = createServer();
  server.use(tracing({ tracer, api }));
  server.method('echo', (params: unknown) => params);
  server.method('sum', ([a, b]: [number, number]) => a + b);
  return server;
}

describe('trace context from client to server', () => {
  it('arrives over real HTTP in the traceparent header', async () => {
    const serverTracer = recordingTracer();
    const clientTracer = recordingTracer();
    const http = await listen(tracedServer(serverTracer), { host: '127.0.0.1', port: 0 });
    cleanups.push(() => http.close());
    const client = tracedClient(
      createClient(createHttpTransport({ url: http.url, headers: traceHeaders({ api }) })),
      { tracer: clientTracer, api },
    );
    cleanups.push(() => client.close());

    expect(await inTrace(() => client.request('sum', [1, 2]))).toBe(3);
    // Concurrent calls each carry their own client span.
    const [one, two] = await inTrace(() =>
      Promise.all([client.request('echo', { a: 1 }), client.request('echo', [2])]),
    );
    expect(one).toEqual({ a: 1 }); // HTTP carries it in a header: params are untouched
    expect(two).toEqual([2]);

    expect(clientTracer.spans.map((s) => s.kind)).toEqual([
      SPAN_KIND_CLIENT,
      SPAN_KIND_CLIENT,
      SPAN_KIND_CLIENT,
    ]);
    for (const [i, serverSpan] of serverTracer.spans.entries()) {
      const clientSpan = clientTracer.spans[i]!;
      expect(clientSpan.context.traceId).toBe(TRACE_ID);
      expect(serverSpan.kind).toBe(SPAN_KIND_SERVER);
      expect(serverSpan.parent).toMatchObject({
        traceId: TRACE_ID,
        spanId: clientSpan.context.spanId,
        isRemote: true,
      });
    }
  });

  describe('over WebSocket', () => {
    async function serve(server: Server): Promise<JsonRpcWebSocketServer<Connection>> {
      const wss = createWebSocketServer(server, { port: 0, host: '127.0.0.1' });
      cleanups.push(() => wss.close({ timeout: 50 }));
      await wss.ready;
      return wss;
    }

    it('arrives in params._meta, beside members the caller set there', async () => {
      const serverTracer = recordingTracer();
      const clientTracer = recordingTracer();
      const wss = await serve(tracedServer(serverTracer));
      const sent: string[] = [];
      const transport = tapTransport(
        traceContextTransport(
          createWebSocketTransport({ url: `ws://127.0.0.1:${wss.port}`, reconnect: false }),
          { api },
        ),
        (direction, message) => {
          if (direction === 'sent') sent.push(message);
        },
      );
      const client = tracedClient(createClient(transport), { tracer: clientTracer, api });
      cleanups.push(() => client.close());

      const echoed = await inTrace(() =>
        client.request('echo', { _meta: { progressToken: 'p1' }, n: 1 }),
      );
      const clientSpan = clientTracer.spans[0]!;
      const traceparent = `00-${TRACE_ID}-${clientSpan.context.spanId}-01`;
      expect(echoed).toEqual({
        _meta: { traceparent, progressToken: 'p1' },
        n: 1,
      });
      expect(serverTracer.spans[0]!.parent).toMatchObject({
        traceId: TRACE_ID,
        spanId: clientSpan.context.spanId,
      });

      // By-position params cannot carry _meta: they go out as they are, and the server span
      // starts a trace of its own.
      expect(await inTrace(() => client.request('sum', [2, 3]))).toBe(5);
      expect(sent[1]).toBe('{"jsonrpc":"2.0","id":2,"method":"sum","params":[2,3]}');
      expect(serverTracer.spans[1]!.parent).toBeUndefined();
    });
  });
});
