/**
 * The client entry: `@jsonrpc-kit/transport-ws/client`. It imports no `node:` module, so it runs
 * in browsers, Deno, Bun and edge workers as well as on Node.
 *
 * @module
 */
export type { ReconnectOptions, ResolvedReconnectOptions } from './backoff.js';
export { DEFAULT_RECONNECT } from './backoff.js';
export type {
  WebSocketConstructor,
  WebSocketLike,
  WebSocketTransport,
  WebSocketTransportOptions,
  WebSocketTransportState,
} from './client-options.js';
export {
  DEFAULT_CLIENT_HIGH_WATER_MARK,
  DEFAULT_CLIENT_MAX_QUEUE,
  DEFAULT_CLOSE_TIMEOUT,
  DEFAULT_CONNECT_TIMEOUT,
} from './client-options.js';
export { createWebSocketTransport } from './client-transport.js';
export type { HeartbeatOptions } from './heartbeat.js';
export { DEFAULT_HEARTBEAT } from './heartbeat.js';
