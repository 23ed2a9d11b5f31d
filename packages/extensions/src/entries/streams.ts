/**
 * Streams over JSON-RPC: a handler returns an async iterable, the caller iterates it, with flow
 * control, cancellation and resumption. Imported from `@jsonrpc-kit/extensions/streams`.
 *
 * @module
 */
export type { ReconnectSignal } from '../reconnect-signal.js';
export { createReconnectSignal } from '../reconnect-signal.js';
export type { StreamCallOptions, StreamIterable } from '../stream-client.js';
export { DEFAULT_RESUME_TIMEOUT, streamCall } from '../stream-client.js';
export type { StreamProfile } from '../stream-profile.js';
export {
  defaultStreamProfile,
  KOTLINX_CANCEL_FLOW,
  KOTLINX_FLOW_COMPLETED,
  KOTLINX_NEXT_FLOW_VALUE,
  kotlinxStreamProfile,
} from '../stream-profile.js';
export type { StreamChunk, StreamHandle } from '../stream-protocol.js';
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
} from '../stream-protocol.js';
export type { ResumableProducer, ResumableStream } from '../stream-resumable.js';
export { resumable } from '../stream-resumable.js';
export type { StreamsOptions } from '../stream-server.js';
export { isAsyncIterable, streams } from '../stream-server.js';
