import { createClient } from '@jsonrpc-kit/client';
import { createMemoryTransportPair, JsonRpcError } from '@jsonrpc-kit/core';
import { createServer, type Server } from '@jsonrpc-kit/server';
import * as api from '@opentelemetry/api';
import { describe, expect, it } from 'vitest';
import { recordingTracer, useContextManager } from '../test/otel.js';
import { parseTraceparent, type TracerLike, tracing } from './tracing.js';

useContextManager();

const TRACE_ID = '0af7651916cd43dd8448eb211c80319c';
const PARENT = `00-${TRACE_ID}-b7ad6b7169203331-01`;

function tracedServer(tracer: TracerLike, withApi = true): Server {
  const server = createServer();
  server.use(tracing(withApi ? { tracer, api } : { tracer }));
  server.method('add', ([a, b]: [number, number]) => a + b);
  server.method('whoami', () => api.trace.getActiveSpan()?.spanContext().spanId ?? null);
  server.method('fail', () => {
    throw new JsonRpcError(42, 'custom');
  });
  server.method('crash', () => {
    throw new Error('secret');
  });
  server.method('meta', (p: unknown) => p);
  return server;
}

describe('tracing', () => {
  it('opens a SERVER span with the JSON-RPC semantic attributes', async () => {
    const tracer = recordingTracer();
    const server = tracedServer(tracer);
    const text = await server.handle('{"jsonrpc":"2.0","id":"a-1","method":"add","params":[1,2]}', {
      kind: 'http',
      remoteAddress: '127.0.0.1',
    });
    expect(text).toBe('{"jsonrpc":"2.0","id":"a-1","result":3}');
    const [span] = tracer.spans;
    expect(span).toMatchObject({
      name: 'add',
      kind: api.SpanKind.SERVER,
      ended: true,
      attributes: {
        'rpc.system': 'jsonrpc',
        'rpc.method': 'add',
        'rpc.jsonrpc.version': '2.0',
        'rpc.jsonrpc.request_id': 'a-1',
        'network.peer.address': '127.0.0.1',
      },
    });
    expect(span!.status).toBeUndefined();
    expect(span!.parent).toBeUndefined();
  });

  it('continues the trace of an HTTP traceparent header and makes the span active', async () => {
    const tracer = recordingTracer();
    const server = tracedServer(tracer);
    const text = await server.handle('{"jsonrpc":"2.0","id":1,"method":"whoami"}', {
      kind: 'http',
      headers: { traceparent: PARENT, tracestate: 'vendor=1' },
    });
    const [span] = tracer.spans;
    expect(span!.parent).toMatchObject({
      traceId: TRACE_ID,
      spanId: 'b7ad6b7169203331',
      isRemote: true,
    });
    expect(span!.parent!.traceState?.get('vendor')).toBe('1');
    expect(JSON.parse(text!).result).toBe(span!.spanContext().spanId);
  });

  it('reads params._meta.traceparent on duplex connections and ignores upgrade headers there', async () => {
    const tracer = recordingTracer();
    const server = tracedServer(tracer);
    const [a, b] = createMemoryTransportPair();
    server.connect(b, {
      kind: 'ws',
      headers: { traceparent: `00-${'1'.repeat(32)}-${'2'.repeat(16)}-01` },
    });
    const client = createClient(a);
    try {
      await client.request('meta', { _meta: { traceparent: PARENT } });
      await client.request('add', [1, 1]);
    } finally {
      await client.close();
    }
    expect(tracer.spans[0]!.parent?.traceId).toBe(TRACE_ID);
    expect(tracer.spans[1]!.parent).toBeUndefined();
  });

  it('records wire errors and unexpected failures', async () => {
    const tracer = recordingTracer();
    const server = tracedServer(tracer);
    await server.handle('{"jsonrpc":"2.0","id":1,"method":"fail"}');
    await server.handle('{"jsonrpc":"2.0","id":null,"method":"crash"}');
    const [fail, crash] = tracer.spans;
    expect(fail!.attributes).toMatchObject({
      'rpc.jsonrpc.error_code': 42,
      'rpc.jsonrpc.error_message': 'custom',
    });
    expect(fail!.status).toEqual({ code: api.SpanStatusCode.ERROR, message: 'custom' });
    expect(fail!.exceptions).toEqual([]);
    expect(crash!.attributes).toMatchObject({
      'rpc.jsonrpc.error_code': -32603,
      'rpc.jsonrpc.error_message': 'Internal error',
      'rpc.jsonrpc.request_id': 'null',
    });
    expect((crash!.exceptions[0] as Error).message).toBe('secret');
    expect(tracer.spans.every((s) => s.ended)).toBe(true);
  });

  it('works without the API module, and with a custom extract', async () => {
    const tracer = recordingTracer();
    const server = tracedServer(tracer, false);
    await server.handle('{"jsonrpc":"2.0","method":"add","params":[1,2]}', {
      headers: { traceparent: PARENT },
    });
    expect(tracer.spans[0]!.parent).toBeUndefined();
    expect('rpc.jsonrpc.request_id' in tracer.spans[0]!.attributes).toBe(false);

    const carriers: unknown[] = [];
    const other = createServer();
    other.use(
      tracing({
        tracer,
        extract: (carrier) => {
          carriers.push(carrier);
          return api.ROOT_CONTEXT;
        },
      }),
    );
    other.method('x', () => 1);
    await other.handle('{"jsonrpc":"2.0","id":1,"method":"x"}', {
      headers: { traceparent: PARENT },
    });
    expect(carriers).toEqual([{ traceparent: PARENT }]);
  });

  it('ignores malformed traceparent values', async () => {
    const tracer = recordingTracer();
    const server = tracedServer(tracer);
    for (const bad of [
      'garbage',
      `00-${'0'.repeat(32)}-b7ad6b7169203331-01`,
      `00-${TRACE_ID}-${'0'.repeat(16)}-01`,
      `ff-${TRACE_ID}-b7ad6b7169203331-01`,
      `00-${TRACE_ID}-b7ad6b7169203331-01-extra`,
    ]) {
      await server.handle('{"jsonrpc":"2.0","id":1,"method":"add","params":[1,2]}', {
        headers: { traceparent: bad },
      });
    }
    expect(tracer.spans.map((s) => s.parent)).toEqual([
      undefined,
      undefined,
      undefined,
      undefined,
      undefined,
    ]);
  });
});

describe('parseTraceparent', () => {
  it('parses a valid header and accepts future versions with extra fields', () => {
    expect(parseTraceparent(PARENT)).toEqual({
      traceId: TRACE_ID,
      spanId: 'b7ad6b7169203331',
      traceFlags: 1,
      isRemote: true,
    });
    expect(parseTraceparent(`01-${TRACE_ID}-b7ad6b7169203331-00-more`)?.traceFlags).toBe(0);
    expect(parseTraceparent(`00-${TRACE_ID}-b7ad6b716920333-01`)).toBeUndefined();
  });
});
