/**
 * OpenTelemetry tracing and W3C trace-context propagation, against the shape of
 * `@opentelemetry/api` (pass `import * as api from '@opentelemetry/api'`; nothing here imports
 * it). Imported from `@jsonrpc-kit/extensions/tracing`.
 *
 * @module
 */
export type { ClientTracingOptions } from '../client-tracing.js';
export { traceCall, tracedClient } from '../client-tracing.js';
export type { TraceCarrier } from '../trace-meta.js';
export { injectTraceContext } from '../trace-meta.js';
export type {
  PropagationApiLike,
  SpanContextLike,
  TraceContextTransportOptions,
  TraceHeadersBase,
  TraceHeadersOptions,
  TracePropagationOptions,
} from '../trace-propagation.js';
export {
  activeTraceCarrier,
  formatTraceparent,
  traceContextTransport,
  traceHeaders,
} from '../trace-propagation.js';
export type {
  OpenTelemetryApiLike,
  RemoteSpanContext,
  SpanAttributeValue,
  SpanLike,
  SpanOptionsLike,
  TracerLike,
  TracingOptions,
} from '../tracing.js';
export { parseTraceparent, traceCarrierOf, tracing } from '../tracing.js';
