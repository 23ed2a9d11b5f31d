/**
 * Outgoing trace context on the client side: the W3C `traceparent` (and `tracestate`) of the
 * active span, sent as HTTP headers or in `params._meta`, where the {@link tracing} middleware
 * of the other side reads it. Works with `@opentelemetry/api` through structural types; it is
 * never imported.
 *
 * @module
 */
import type { SendOptions, Transport, TransportHandler } from '@jsonrpc-kit/core';
import { injectTraceContext, type TraceCarrier } from './trace-meta.js';

/** The part of an OpenTelemetry `SpanContext` that a `traceparent` is made of. */
export interface SpanContextLike {
  /** 32 lower-case hex digits. */
  readonly traceId: string;
  /** 16 lower-case hex digits. */
  readonly spanId: string;
  /** W3C trace flags (`1`: sampled). */
  readonly traceFlags: number;
  /** The vendor trace state, when there is one. */
  readonly traceState?:
    | {
        /** The trace state as a `tracestate` header value. */
        serialize(): string;
      }
    | undefined;
}

/**
 * The part of the `@opentelemetry/api` module that reading the active span context needs:
 * `import * as api from '@opentelemetry/api'` fits.
 */
export interface PropagationApiLike {
  /** `api.context`: the active context. */
  readonly context: {
    /** The active context. */
    active(): any;
  };
  /** `api.trace`: the span context a context carries. */
  readonly trace: {
    /** The span context `context` carries, if any. */
    getSpanContext(context: any): SpanContextLike | undefined;
  };
}

/**
 * Where the outgoing trace context comes from. Give one of the three; when several are given,
 * `inject` wins over `getTraceparent`, which wins over `api`. Whatever they throw is swallowed:
 * tracing never fails a call.
 */
export interface TracePropagationOptions {
  /**
   * The `@opentelemetry/api` module: the active span's context becomes `traceparent` and its
   * trace state `tracestate` (W3C format, no SDK propagator needed).
   */
  readonly api?: PropagationApiLike;
  /** Returns the `traceparent` to send (or `undefined`: none). For tracers other than OpenTelemetry. */
  readonly getTraceparent?: () => string | undefined;
  /**
   * Fills the carrier yourself, e.g. with a configured propagator:
   * `(carrier) => propagation.inject(context.active(), carrier)` (adds `baggage` too, say).
   */
  readonly inject?: (carrier: TraceCarrier) => void;
}

/** Request headers as `createHttpTransport({ headers })` takes them. */
export type TraceHeadersBase =
  | Readonly<Record<string, string>>
  | (() => Readonly<Record<string, string>> | Promise<Readonly<Record<string, string>>>);

/** Options of {@link traceHeaders}. */
export interface TraceHeadersOptions extends TracePropagationOptions {
  /** Other headers to send with every request (fixed, or a function called per request). */
  readonly headers?: TraceHeadersBase;
}

/** Options of {@link traceContextTransport}. */
export interface TraceContextTransportOptions extends TracePropagationOptions {
  /**
   * Which outgoing methods carry the trace context (default: every request and notification
   * with by-name params). Exclude methods whose params the other side checks strictly.
   */
  readonly filter?: (method: string) => boolean;
}

const HEX32 = /^[0-9a-f]{32}$/;
const HEX16 = /^[0-9a-f]{16}$/;
const ZERO_TRACE = '0'.repeat(32);
const ZERO_SPAN = '0'.repeat(16);

/**
 * Formats a span context as a W3C `traceparent` (version `00`).
 *
 * @param spanContext - trace id, span id and flags
 * @returns the header value, or `undefined` when the ids are malformed or all zero (no span)
 * @example
 * ```ts
 * formatTraceparent({ traceId: '0af7651916cd43dd8448eb211c80319c', spanId: 'b7ad6b7169203331', traceFlags: 1 });
 * // '00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01'
 * ```
 */
export function formatTraceparent(spanContext: SpanContextLike): string | undefined {
  const { traceId, spanId } = spanContext;
  if (!HEX32.test(traceId) || !HEX16.test(spanId)) return undefined;
  if (traceId === ZERO_TRACE || spanId === ZERO_SPAN) return undefined;
  const flags = spanContext.traceFlags & 0xff;
  return `00-${traceId}-${spanId}-${flags < 16 ? '0' : ''}${flags.toString(16)}`;
}

/**
 * Reads the trace context to send now, from the active context (or the callbacks of `options`).
 *
 * @param options - the API module, a `getTraceparent` callback, or an `inject` function
 * @returns the carrier (`traceparent`, maybe `tracestate`, …), or `undefined` when there is no
 *   active trace
 * @throws TypeError when `options` names no source
 * @example
 * ```ts
 * import * as api from '@opentelemetry/api';
 * activeTraceCarrier({ api }); // { traceparent: '00-…-01' } inside a span, else undefined
 * ```
 */
export function activeTraceCarrier(options: TracePropagationOptions): TraceCarrier | undefined {
  return carrierReader(options)();
}

function carrierReader(options: TracePropagationOptions): () => TraceCarrier | undefined {
  const { api, getTraceparent, inject } = options;
  if (inject !== undefined) {
    return () => {
      const carrier: TraceCarrier = {};
      try {
        inject(carrier);
      } catch {
        return undefined;
      }
      return typeof carrier.traceparent === 'string' ? carrier : undefined;
    };
  }
  if (getTraceparent !== undefined) {
    return () => {
      let traceparent: string | undefined;
      try {
        traceparent = getTraceparent();
      } catch {
        return undefined;
      }
      return typeof traceparent === 'string' && traceparent !== '' ? { traceparent } : undefined;
    };
  }
  if (api !== undefined) {
    return () => {
      let spanContext: SpanContextLike | undefined;
      let tracestate = '';
      try {
        spanContext = api.trace.getSpanContext(api.context.active());
        if (spanContext === undefined) return undefined;
        tracestate = spanContext.traceState?.serialize() ?? '';
      } catch {
        return undefined;
      }
      const traceparent = formatTraceparent(spanContext);
      if (traceparent === undefined) return undefined;
      return tracestate === '' ? { traceparent } : { traceparent, tracestate };
    };
  }
  throw new TypeError('trace propagation needs one of api, getTraceparent or inject');
}

/**
 * A `headers` function for `createHttpTransport({ headers })` that adds `traceparent` (and
 * `tracestate` when there is one) of the active span to every request. The trace context is
 * read when the request is sent, in the caller's context.
 *
 * @param options - where the trace context comes from, and other headers to send
 * @returns the headers function
 * @throws TypeError when `options` names no source of trace context
 * @example
 * ```ts
 * import * as api from '@opentelemetry/api';
 * const transport = createHttpTransport({
 *   url: 'http://127.0.0.1:8080/rpc',
 *   headers: traceHeaders({ api, headers: { authorization: `Bearer ${token}` } }),
 * });
 * ```
 */
export function traceHeaders(
  options: TraceHeadersOptions,
): () => Readonly<Record<string, string>> | Promise<Readonly<Record<string, string>>> {
  const read = carrierReader(options);
  const base = options.headers;
  const merge = (
    headers: Readonly<Record<string, string>> | undefined,
    carrier: TraceCarrier | undefined,
  ): Readonly<Record<string, string>> =>
    carrier === undefined
      ? (headers ?? {})
      : headers === undefined
        ? carrier
        : { ...headers, ...carrier };
  return () => {
    const carrier = read();
    if (typeof base !== 'function') return merge(base, carrier);
    const headers = base();
    return headers instanceof Promise
      ? headers.then((value) => merge(value, carrier))
      : merge(headers, carrier);
  };
}

/**
 * Wraps a duplex transport so that outgoing requests and notifications with by-name params carry
 * the active trace context in `params._meta` (`traceparent`, `tracestate`): the convention the
 * {@link tracing} middleware reads, and MCP's. The text is edited in place (see
 * {@link injectTraceContext}); answers, by-position params and messages sent outside a trace go
 * out untouched. Everything else passes through.
 *
 * The trace context is the one active when the message is sent: a call's own context, or for an
 * auto-batch, the context of the call that opened the batch.
 *
 * @param transport - the transport to wrap (WebSocket, stdio, memory, …)
 * @param options - where the trace context comes from, and which methods carry it
 * @returns the wrapped transport
 * @throws TypeError when `options` names no source of trace context
 * @example
 * ```ts
 * import * as api from '@opentelemetry/api';
 * const client = createClient(traceContextTransport(createWebSocketTransport({ url }), { api }));
 * ```
 */
export function traceContextTransport(
  transport: Transport,
  options: TraceContextTransportOptions,
): Transport {
  const read = carrierReader(options);
  const filter = options.filter;
  return {
    start: (handler: TransportHandler) => transport.start(handler),
    send(message: string, sendOptions?: SendOptions) {
      const carrier = read();
      let text = message;
      if (carrier !== undefined) {
        try {
          text = injectTraceContext(message, carrier, filter);
        } catch {
          // A throwing filter: the message goes out untraced.
        }
      }
      return transport.send(text, sendOptions);
    },
    close: (reason?: unknown) => transport.close(reason),
  };
}
