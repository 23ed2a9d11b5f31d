/**
 * JSON-RPC 2.0 over HTTP on Node: the node:http handler, `listen()`, the fetch handler, and the
 * client transport on an undici keep-alive pool. Selected by the `node` export condition, or
 * imported as `@jsonrpc-kit/transport-http/node`.
 *
 * @module
 */
export {
  DEFAULT_BODY_TIMEOUT,
  DEFAULT_CORS_MAX_AGE,
  DEFAULT_HTTP_ERROR_CODE,
  DEFAULT_HTTP_TIMEOUT,
  DEFAULT_KEEP_ALIVE_TIMEOUT,
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
export type { HttpListener, ListenOptions } from './listen.js';
export {
  DEFAULT_HEADERS_TIMEOUT,
  DEFAULT_HOST,
  DEFAULT_PORT,
  DEFAULT_REQUEST_TIMEOUT,
  listen,
} from './listen.js';
export type { NodeHttpHandler } from './node-handler.js';
export { createHttpHandler } from './node-handler.js';
export type { NodeHttpTransportOptions } from './node-transport.js';
export { createHttpTransport } from './node-transport.js';
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
export type { StreamableNodeHttpHandler } from './streamable-node.js';
export { createStreamableHttpNodeHandler } from './streamable-node.js';
export type { AnswerRelay } from './streamable-relay.js';
export { ANSWER_RELAY_TOPIC } from './streamable-relay.js';
export type {
  StreamableHttpTransport,
  StreamableHttpTransportOptions,
  StreamableReconnectOptions,
} from './streamable-transport.js';
export { createStreamableHttpTransport } from './streamable-transport.js';
