/**
 * Tracing middleware following the OpenTelemetry RPC semantic conventions for JSON-RPC. Works
 * with `@opentelemetry/api` (an optional peer) through structural types: pass its tracer, and the
 * API module itself to continue the caller's trace.
 *
 * @module
 */
import { isJsonRpcError, type JsonRpcId } from '@jsonrpc-kit/core';
import type { MiddlewareContext, ServerMiddleware } from '@jsonrpc-kit/server';
import { errorCodeOf, errorMessageOf } from '@jsonrpc-kit/server/middleware';

/** Attribute values a span accepts. */
export type SpanAttributeValue = string | number | boolean;

/** The part of an OpenTelemetry `Span` the middleware uses. */
export interface SpanLike {
  /**
   * Sets one attribute.
   *
   * @param key - the attribute name
   * @param value - its value
   */
  setAttribute(key: string, value: SpanAttributeValue): unknown;
  /**
   * Sets the status (`2` is `ERROR`).
   *
   * @param status - code and message
   */
  setStatus(status: { code: number; message?: string }): unknown;
  /**
   * Records an unexpected failure.
   *
   * @param exception - what was thrown
   */
  recordException(exception: any): unknown;
  /** Ends the span. */
  end(): void;
}

/** The part of OpenTelemetry's `SpanOptions` the middleware sets. */
export interface SpanOptionsLike {
  /** The span kind (`1` is `SERVER`). */
  kind?: number;
  /** Attributes known at the start. */
  attributes?: Record<string, SpanAttributeValue>;
}

/** The part of an OpenTelemetry `Tracer` the middleware uses. */
export interface TracerLike {
  /**
   * Starts a span.
   *
   * @param name - the span name (the method)
   * @param options - kind and attributes
   * @param context - the parent context, when known
   * @returns the span
   */
  startSpan(name: string, options?: SpanOptionsLike, context?: any): SpanLike;
}

/** A remote parent, as read from a `traceparent`. */
export interface RemoteSpanContext {
  /** 32 lower-case hex digits. */
  traceId: string;
  /** 16 lower-case hex digits: the caller's span. */
  spanId: string;
  /** W3C trace flags (`1`: sampled). */
  traceFlags: number;
  /** Always `true`: the parent lives in another process. */
  isRemote: true;
  /** The parsed `tracestate`, when the API module can make one. */
  traceState?: any;
}

/**
 * The part of the `@opentelemetry/api` module the middleware uses to parent spans and make them
 * active: `import * as api from '@opentelemetry/api'` fits.
 */
export interface OpenTelemetryApiLike {
  /** `api.context`: the active context, and running a function within one. */
  readonly context: {
    /** The active context. */
    active(): any;
    /**
     * Runs `fn` with `context` active.
     *
     * @typeParam A - the arguments of `fn`
     * @typeParam F - the function to run
     */
    with<A extends unknown[], F extends (...args: A) => ReturnType<F>>(
      context: any,
      fn: F,
      thisArg?: ThisParameterType<F>,
      ...args: A
    ): ReturnType<F>;
  };
  /** `api.trace`: contexts that carry a span or a remote span context. */
  readonly trace: {
    /** A copy of `context` that carries `span`. */
    setSpan(context: any, span: any): any;
    /** A copy of `context` that carries a remote span context. */
    setSpanContext(context: any, spanContext: any): any;
  };
  /** `api.createTraceState`: parses a `tracestate` header. */
  readonly createTraceState?: (raw?: string) => any;
}

/** Options of {@link tracing}. */
export interface TracingOptions {
  /** The tracer, e.g. `trace.getTracer('my-service')` from `@opentelemetry/api`. */
  readonly tracer: TracerLike;
  /**
   * The `@opentelemetry/api` module. With it, a span continues the caller's trace (from
   * `traceparent`/`tracestate`) and is the active span while the handler runs. Without it, spans
   * start under whatever context is active.
   */
  readonly api?: OpenTelemetryApiLike;
  /**
   * Reads the parent context from a carrier yourself (a configured propagator, say:
   * `(carrier) => propagation.extract(context.active(), carrier)`). Wins over the built-in W3C
   * `traceparent` reading.
   */
  readonly extract?: (carrier: Readonly<Record<string, string>>) => unknown;
}

/** The span kind `SERVER` of OpenTelemetry. */
const SPAN_KIND_SERVER = 1;
/** The span status `ERROR` of OpenTelemetry. */
const SPAN_STATUS_ERROR = 2;

const TRACEPARENT = /^([0-9a-f]{2})-([0-9a-f]{32})-([0-9a-f]{16})-([0-9a-f]{2})(-.*)?$/;

/**
 * Parses a W3C `traceparent` header value.
 *
 * @param value - the header value
 * @returns the remote span context, or `undefined` when the value is malformed or all-zero
 * @example
 * ```ts
 * parseTraceparent('00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01');
 * // { traceId: '0af7…', spanId: 'b7ad…', traceFlags: 1, isRemote: true }
 * ```
 */
export function parseTraceparent(value: string): RemoteSpanContext | undefined {
  const match = TRACEPARENT.exec(value.trim().toLowerCase());
  if (match === null) return undefined;
  const [, version, traceId, spanId, flags, rest] = match;
  if (version === 'ff' || (version === '00' && rest !== undefined)) return undefined;
  if (/^0+$/.test(traceId!) || /^0+$/.test(spanId!)) return undefined;
  return {
    traceId: traceId!,
    spanId: spanId!,
    traceFlags: Number.parseInt(flags!, 16),
    isRemote: true,
  };
}

function headerValue(value: string | readonly string[] | undefined): string | undefined {
  return typeof value === 'string' ? value : value?.[0];
}

/**
 * The trace carrier of a call: `params._meta` (`traceparent`, `tracestate`) on any transport,
 * else, for a stateless exchange (HTTP), the request headers.
 *
 * @param ctx - the call's context
 * @returns the carrier (possibly empty)
 * @example
 * ```ts
 * const carrier = traceCarrierOf(ctx); // { traceparent: '00-…-01' }
 * ```
 */
export function traceCarrierOf(ctx: MiddlewareContext): Record<string, string> {
  const carrier: Record<string, string> = {};
  const params = ctx.params;
  if (typeof params === 'object' && params !== null && !Array.isArray(params)) {
    const meta = (params as { _meta?: unknown })._meta;
    if (typeof meta === 'object' && meta !== null) {
      const { traceparent, tracestate } = meta as { traceparent?: unknown; tracestate?: unknown };
      if (typeof traceparent === 'string') {
        carrier.traceparent = traceparent;
        if (typeof tracestate === 'string') carrier.tracestate = tracestate;
        return carrier;
      }
    }
  }
  const headers = ctx.transport.headers;
  if (ctx.peer === undefined && headers !== undefined) {
    const traceparent = headerValue(headers.traceparent);
    if (traceparent !== undefined) {
      carrier.traceparent = traceparent;
      const tracestate = headerValue(headers.tracestate);
      if (tracestate !== undefined) carrier.tracestate = tracestate;
    }
  }
  return carrier;
}

function requestIdAttribute(id: JsonRpcId): string {
  return id === null ? 'null' : String(id);
}

/**
 * Tracing: one `SERVER` span per call, named after the method, with the OpenTelemetry RPC
 * attributes `rpc.system = "jsonrpc"`, `rpc.method`, `rpc.jsonrpc.version = "2.0"`,
 * `rpc.jsonrpc.request_id`, and on failure `rpc.jsonrpc.error_code`, `rpc.jsonrpc.error_message`
 * and an `ERROR` status. The caller's trace context is read from `params._meta.traceparent` (any
 * transport) or the `traceparent` header (HTTP).
 *
 * @param options - the tracer, and the API module to parent and activate spans
 * @returns the middleware
 * @example
 * ```ts
 * import * as api from '@opentelemetry/api';
 * server.use(tracing({ tracer: api.trace.getTracer('calc'), api }));
 * ```
 */
export function tracing(options: TracingOptions): ServerMiddleware {
  const { tracer, api, extract } = options;
  const parentOf = (ctx: MiddlewareContext): unknown => {
    const carrier = traceCarrierOf(ctx);
    if (extract) return extract(carrier);
    if (!api || carrier.traceparent === undefined) return undefined;
    const remote = parseTraceparent(carrier.traceparent);
    if (remote === undefined) return undefined;
    if (carrier.tracestate !== undefined && api.createTraceState) {
      remote.traceState = api.createTraceState(carrier.tracestate);
    }
    return api.trace.setSpanContext(api.context.active(), remote);
  };
  return async (ctx, next) => {
    const attributes: Record<string, SpanAttributeValue> = {
      'rpc.system': 'jsonrpc',
      'rpc.method': ctx.method,
      'rpc.jsonrpc.version': '2.0',
    };
    if (ctx.id !== undefined) attributes['rpc.jsonrpc.request_id'] = requestIdAttribute(ctx.id);
    if (ctx.transport.remoteAddress !== undefined) {
      attributes['network.peer.address'] = ctx.transport.remoteAddress;
    }
    const parent = parentOf(ctx);
    const span = tracer.startSpan(ctx.method, { kind: SPAN_KIND_SERVER, attributes }, parent);
    try {
      if (api) {
        const active = api.trace.setSpan(parent ?? api.context.active(), span);
        return await api.context.with(active, next);
      }
      return await next();
    } catch (error) {
      const message = errorMessageOf(error);
      span.setAttribute('rpc.jsonrpc.error_code', errorCodeOf(error));
      span.setAttribute('rpc.jsonrpc.error_message', message);
      if (!isJsonRpcError(error)) span.recordException(error);
      span.setStatus({ code: SPAN_STATUS_ERROR, message });
      throw error;
    } finally {
      span.end();
    }
  };
}
