// Type tests: compiled by tsc (vitest typecheck mode and `pnpm typecheck`), never run.
import { type Client, createClient } from '@jsonrpc-kit/client';
import type { Transport } from '@jsonrpc-kit/core';
import type { HttpTransportOptions } from '@jsonrpc-kit/transport-http';
import * as api from '@opentelemetry/api';
import { describe, expectTypeOf, it } from 'vitest';
import { tracedClient } from './client-tracing.js';
import { type McpProgress, mcpProfile } from './profiles.js';
import { type PropagationApiLike, traceHeaders } from './trace-propagation.js';
import { type OpenTelemetryApiLike, type TracerLike, tracing } from './tracing.js';

declare const transport: Transport;

describe('types', () => {
  it('types onProgress by the profile', () => {
    const client = createClient(transport, { profile: mcpProfile, sendCancel: true });
    expectTypeOf(client).toEqualTypeOf<Client<McpProgress>>();
    const call = client.request<number>(
      'x',
      {},
      { onProgress: (p) => expectTypeOf(p).toEqualTypeOf<McpProgress>() },
    );
    expectTypeOf(call).toEqualTypeOf<Promise<number>>();
    // @ts-expect-error onProgress receives McpProgress, not a string
    void client.request('x', {}, { onProgress: (p: string) => p });
  });

  it('accepts the real @opentelemetry/api tracer and module', () => {
    expectTypeOf(api.trace.getTracer('x')).toExtend<TracerLike>();
    expectTypeOf(api).toExtend<OpenTelemetryApiLike>();
    // @ts-expect-error a tracer is required
    tracing({ api });
  });

  it('fits the real API module and the HTTP transport options', () => {
    expectTypeOf(api).toExtend<PropagationApiLike>();
    expectTypeOf(traceHeaders({ api })).toExtend<NonNullable<HttpTransportOptions['headers']>>();
    expectTypeOf(tracedClient).returns.toEqualTypeOf<Client>();
    // @ts-expect-error a tracer is required
    tracedClient(createClient(transport), { api });
  });
});
