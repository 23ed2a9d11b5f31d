export type { ClientTracingOptions } from './client-tracing.js';
export { traceCall, tracedClient } from './client-tracing.js';
export type { JsonSchema, JsonSchemaConverter } from './json-schema.js';
export { defaultJsonSchemaConverter } from './json-schema.js';
export type { LogEntry, LoggingOptions, LogLevel } from './logging.js';
export { DEFAULT_LOG_LEVEL, logging } from './logging.js';
export type {
  MethodMetrics,
  MetricsOptions,
  MetricsRecorder,
  MetricsRegistry,
  MetricsRegistryOptions,
  MetricsSnapshot,
} from './metrics.js';
export {
  createMetricsRegistry,
  DEFAULT_DURATION_BUCKETS,
  DEFAULT_MAX_METHODS,
  metrics,
  OTHER_METHOD,
} from './metrics.js';
export type {
  MethodDescription,
  OpenRpcContentDescriptor,
  OpenRpcDocument,
  OpenRpcInfo,
  OpenRpcMethod,
  OpenRpcOptions,
  OpenRpcServer,
} from './openrpc.js';
export { createOpenRpcDocument, describeContract, OPENRPC_VERSION, openrpc } from './openrpc.js';
export type { McpProgress, Profile, ProgressProtocol, ProgressToken } from './profiles.js';
export { LSP_REQUEST_CANCELLED, lspProfile, mcpProfile } from './profiles.js';
export type {
  ProfiledClient,
  ProfiledClientOptions,
  ProfiledRequestOptions,
  ProgressReporter,
} from './progress.js';
export { createProfiledClient, progress, progressOf } from './progress.js';
export type { RateLimitOptions, TokenBucket, TokenBucketOptions } from './rate-limit.js';
export {
  createTokenBucket,
  DEFAULT_RATE_LIMIT_MAX_KEYS,
  rateLimit,
} from './rate-limit.js';
export type { ReconnectSignal } from './reconnect-signal.js';
export { createReconnectSignal } from './reconnect-signal.js';
export type { StreamCallOptions, StreamIterable } from './stream-client.js';
export { DEFAULT_RESUME_TIMEOUT, streamCall } from './stream-client.js';
export type { StreamProfile } from './stream-profile.js';
export {
  defaultStreamProfile,
  KOTLINX_CANCEL_FLOW,
  KOTLINX_FLOW_COMPLETED,
  KOTLINX_NEXT_FLOW_VALUE,
  kotlinxStreamProfile,
} from './stream-profile.js';
export type { StreamChunk, StreamHandle } from './stream-protocol.js';
export {
  DEFAULT_MAX_ITEMS_PER_PULL,
  DEFAULT_MAX_STREAMS,
  DEFAULT_STREAM_IDLE_TIMEOUT,
  DEFAULT_STREAM_WINDOW,
  STREAM_CANCEL_METHOD,
  STREAM_ENDED,
  STREAM_NEXT_METHOD,
  STREAM_RESUME_PARAM,
  StreamEndedError,
} from './stream-protocol.js';
export type {
  ResumableProducer,
  ResumableStream,
  StreamsOptions,
} from './stream-server.js';
export { isAsyncIterable, resumable, streams } from './stream-server.js';
export type { TraceCarrier } from './trace-meta.js';
export { injectTraceContext } from './trace-meta.js';
export type {
  PropagationApiLike,
  SpanContextLike,
  TraceContextTransportOptions,
  TraceHeadersBase,
  TraceHeadersOptions,
  TracePropagationOptions,
} from './trace-propagation.js';
export {
  activeTraceCarrier,
  formatTraceparent,
  traceContextTransport,
  traceHeaders,
} from './trace-propagation.js';
export type {
  OpenTelemetryApiLike,
  RemoteSpanContext,
  SpanAttributeValue,
  SpanLike,
  SpanOptionsLike,
  TracerLike,
  TracingOptions,
} from './tracing.js';
export { parseTraceparent, traceCarrierOf, tracing } from './tracing.js';
