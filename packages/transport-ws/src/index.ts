/**
 * JSON-RPC 2.0 over WebSocket: the `ws`-based server for Node and the reconnecting client
 * transport (also available alone, without `node:` imports, from `@jsonrpc-kit/transport-ws/client`).
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
export type { CloseCodeValue } from './close-codes.js';
export { CloseCode } from './close-codes.js';
export type { HeartbeatOptions } from './heartbeat.js';
export { DEFAULT_HEARTBEAT } from './heartbeat.js';
export type { JsonRpcWebSocketServer } from './server.js';
export { createWebSocketServer } from './server.js';
export type {
  OriginCheck,
  WebSocketServerCloseOptions,
  WebSocketServerOptions,
} from './server-options.js';
export { DEFAULT_SHUTDOWN_TIMEOUT } from './server-options.js';
export { createSocketTransport } from './socket-transport.js';
export type {
  ServerSocketLike,
  SocketData,
  SocketTransport,
  SocketTransportOptions,
} from './socket-types.js';
