/**
 * JSON-RPC 2.0 over HTTP, for every runtime: the fetch handler and the fetch client transport.
 * Imports no `node:` module. On Node, the `node` export condition selects `node.ts` instead,
 * which adds the node:http handler, `listen()` and the undici client transport.
 *
 * @module
 */
export {
  DEFAULT_BODY_TIMEOUT,
  DEFAULT_CORS_MAX_AGE,
  DEFAULT_HTTP_ERROR_CODE,
  DEFAULT_HTTP_TIMEOUT,
  DISCARD_BYTES,
  DISCARD_TIMEOUT,
} from './constants.js';
export { isJsonContentType } from './content-type.js';
export type { EventStore, MemoryEventStoreOptions } from './event-store.js';
export {
  createMemoryEventStore,
  DEFAULT_EVENT_STORE_MAX_AGE,
  DEFAULT_EVENT_STORE_MAX_BYTES,
  DEFAULT_EVENT_STORE_MAX_EVENTS,
  DEFAULT_EVENT_STORE_MAX_STREAM_BYTES,
} from './event-store.js';
export type { FetchHandler, FetchRequestInfo } from './fetch-handler.js';
export { createFetchHandler } from './fetch-handler.js';
export type {
  Authenticate,
  CorsOptions,
  HttpHandlerOptions,
  StatusPolicy,
} from './handler-options.js';
export { defaultStatus } from './handler-options.js';
export type { HttpErrorOptions } from './http-error.js';
export { HttpError } from './http-error.js';
export { createHttpTransport } from './http-transport.js';
export type { FetchLike, HttpHeadersOption, HttpTransportOptions } from './post-transport.js';
export type { OriginGuardOptions } from './request-policy.js';
export type { SessionRecord, SessionStore } from './session-store.js';
export { createMemorySessionStore } from './session-store.js';
export type { SseEvent, SseParser } from './sse.js';
export { createSseParser, encodeSseEvent } from './sse.js';
export type {
  StreamableHttpHandler,
  StreamableHttpHandlerOptions,
  StreamableRequestInfo,
  StreamableSessionOptions,
} from './streamable-handler.js';
export {
  createStreamableHttpHandler,
  DEFAULT_KEEP_ALIVE_INTERVAL,
  DEFAULT_MAX_BUFFERED_BYTES,
  DEFAULT_MAX_BUFFERED_EVENTS,
  DEFAULT_MAX_SESSIONS,
  DEFAULT_MAX_SESSIONS_PER_CLIENT,
  DEFAULT_PUSH_METHODS,
  DEFAULT_SESSION_IDLE_TIMEOUT,
  MCP_PROTOCOL_VERSIONS,
  SESSIONS_FULL_RETRY_AFTER,
} from './streamable-handler.js';
export type { AnswerRelay } from './streamable-options.js';
export { ANSWER_RELAY_TOPIC } from './streamable-relay.js';
export { createStreamableHttpTransport } from './streamable-transport.js';
export type {
  StreamableHttpTransport,
  StreamableHttpTransportOptions,
  StreamableReconnectOptions,
} from './streamable-transport-options.js';
export { DEFAULT_STREAMABLE_RECONNECT } from './streamable-transport-options.js';
