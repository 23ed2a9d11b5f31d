/**
 * Client spans: one `CLIENT` span per outgoing call, active while the call is sent, so that the
 * trace context the transport propagates is the call's own.
 *
 * @module
 */
import type { Client } from '@jsonrpc-kit/client';
import { isJsonRpcError } from '@jsonrpc-kit/core';
import type { OpenTelemetryApiLike, SpanAttributeValue, TracerLike } from './tracing.js';

/** Options of {@link traceCall} and {@link tracedClient}. */
export interface ClientTracingOptions {
  /** The tracer, e.g. `trace.getTracer('my-client')` from `@opentelemetry/api`. */
  readonly tracer: TracerLike;
  /** The `@opentelemetry/api` module: parents the span and makes it active during the call. */
  readonly api: OpenTelemetryApiLike;
}

/** The span kind `CLIENT` of OpenTelemetry. */
const SPAN_KIND_CLIENT = 2;
/** The span status `ERROR` of OpenTelemetry. */
const SPAN_STATUS_ERROR = 2;

/**
 * Runs one call inside a `CLIENT` span named after the method, with the OpenTelemetry RPC
 * attributes `rpc.system = "jsonrpc"`, `rpc.method` and `rpc.jsonrpc.version = "2.0"`. A wire
 * error sets `rpc.jsonrpc.error_code` and `rpc.jsonrpc.error_message`; a local failure (timeout,
 * closed connection) sets `error.type` to its string code and is recorded as an exception; both
 * set an `ERROR` status. The span is active while `call` runs, so a transport wrapped with
 * `traceContextTransport` (or HTTP `traceHeaders`) sends its context to the server.
 *
 * @param options - the tracer and the API module
 * @param method - the method called (the span name)
 * @param call - makes the call; its promise settles the span
 * @returns what `call` returns
 * @throws whatever `call` rejects with, unchanged
 * @example
 * ```ts
 * const sum = await traceCall({ tracer, api }, 'add', () => client.request('add', [1, 2]));
 * ```
 */
export function traceCall<T>(
  options: ClientTracingOptions,
  method: string,
  call: () => Promise<T>,
): Promise<T> {
  const { tracer, api } = options;
  const attributes: Record<string, SpanAttributeValue> = {
    'rpc.system': 'jsonrpc',
    'rpc.method': method,
    'rpc.jsonrpc.version': '2.0',
  };
  const parent = api.context.active();
  const span = tracer.startSpan(method, { kind: SPAN_KIND_CLIENT, attributes }, parent);
  let pending: Promise<T>;
  try {
    pending = api.context.with(api.trace.setSpan(parent, span), call);
  } catch (error) {
    pending = Promise.reject(error);
  }
  return Promise.resolve(pending).then(
    (value) => {
      span.end();
      return value;
    },
    (error: unknown) => {
      const message = error instanceof Error ? error.message : String(error);
      if (isJsonRpcError(error)) {
        span.setAttribute('rpc.jsonrpc.error_code', error.code);
        span.setAttribute('rpc.jsonrpc.error_message', error.message);
      } else {
        const code = (error as { code?: unknown } | null)?.code;
        span.setAttribute('error.type', typeof code === 'string' ? code : 'Error');
        span.recordException(error);
      }
      span.setStatus({ code: SPAN_STATUS_ERROR, message });
      span.end();
      throw error;
    },
  );
}

/**
 * The same client, with a `CLIENT` span (see {@link traceCall}) around every `request` and
 * `notify`. Every other member passes through untouched (batches and contract proxies get no
 * span of their own, but still carry the active context when the transport propagates it).
 *
 * @param client - the client to trace
 * @param options - the tracer and the API module
 * @returns a client whose `request` and `notify` open spans
 * @example
 * ```ts
 * import * as api from '@opentelemetry/api';
 * const client = tracedClient(
 *   createClient(traceContextTransport(transport, { api })),
 *   { tracer: api.trace.getTracer('app'), api },
 * );
 * ```
 */
export function tracedClient(client: Client, options: ClientTracingOptions): Client {
  const request: Client['request'] = (method, ...rest) =>
    traceCall(options, method, () => client.request(method, ...rest));
  const notify: Client['notify'] = (method, ...rest) =>
    traceCall(options, method, () => client.notify(method, ...rest));
  return new Proxy(client, {
    get(target, key) {
      if (key === 'request') return request;
      if (key === 'notify') return notify;
      return Reflect.get(target, key, target);
    },
  });
}
