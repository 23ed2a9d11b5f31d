/**
 * Default limits shared by the kit's endpoints: one home for each, used by the server, the
 * transports and the clients.
 *
 * @module
 */

/**
 * The largest message a network-facing endpoint takes (`maxMessageBytes`), in UTF-8 bytes: the
 * server, the HTTP handlers (a request body) and the WebSocket server (a message). A transport
 * adapter adopts its server's `maxMessageBytes` unless given its own.
 *
 * @default 1048576 (1 MiB)
 * @example
 * ```ts
 * import { DEFAULT_MAX_MESSAGE_BYTES } from '@jsonrpc-kit/core';
 * const options = { maxMessageBytes: 4 * DEFAULT_MAX_MESSAGE_BYTES };
 * ```
 */
export const DEFAULT_MAX_MESSAGE_BYTES: number = 1024 * 1024;

/**
 * The largest answer a client transport takes (`maxMessageBytes` of the HTTP and WebSocket client
 * transports), in bytes: an HTTP body, counted as its bytes arrive, a message of a Streamable HTTP
 * event stream, counted in characters (each at least one byte), or a WebSocket message (where the
 * socket can be told: `ws`, the default on Node; a larger one closes with 1009 without being read
 * whole). A server that sends an endless answer cannot grow the client's memory past it.
 *
 * @default 16777216 (16 MiB)
 * @example
 * ```ts
 * import { DEFAULT_CLIENT_MAX_MESSAGE_BYTES } from '@jsonrpc-kit/core';
 * const options = { maxMessageBytes: DEFAULT_CLIENT_MAX_MESSAGE_BYTES / 4 };
 * ```
 */
export const DEFAULT_CLIENT_MAX_MESSAGE_BYTES: number = 16 * 1024 * 1024;

/**
 * The most connections a listening server keeps open at once (`maxConnections` of the HTTP
 * `listen()` and the WebSocket server); more are refused with HTTP 503.
 *
 * @default 10000
 * @example
 * ```ts
 * import { DEFAULT_MAX_CONNECTIONS } from '@jsonrpc-kit/core';
 * const options = { maxConnections: DEFAULT_MAX_CONNECTIONS / 10 };
 * ```
 */
export const DEFAULT_MAX_CONNECTIONS: number = 10_000;

/**
 * The most connections one remote address may keep open on a listening server
 * (`maxConnectionsPerAddress` of the HTTP `listen()` and the WebSocket server); more are refused
 * with HTTP 503. Behind a reverse proxy every connection has the proxy's address: raise it there.
 *
 * @default 1000
 * @example
 * ```ts
 * import { DEFAULT_MAX_CONNECTIONS_PER_ADDRESS } from '@jsonrpc-kit/core';
 * const options = { maxConnectionsPerAddress: DEFAULT_MAX_CONNECTIONS_PER_ADDRESS * 2 };
 * ```
 */
export const DEFAULT_MAX_CONNECTIONS_PER_ADDRESS: number = 1000;

/**
 * Bytes of outgoing messages that may wait unsent (`highWaterMark` of the stdio and stream
 * transports and of WebSocket sockets) before `send()` waits and the peer stops being read: a
 * peer that sends requests but does not read the answers is no longer read until it catches up,
 * so memory stays bounded.
 *
 * @default 1048576 (1 MiB)
 * @example
 * ```ts
 * import { DEFAULT_HIGH_WATER_MARK } from '@jsonrpc-kit/core';
 * const options = { highWaterMark: 4 * DEFAULT_HIGH_WATER_MARK };
 * ```
 */
export const DEFAULT_HIGH_WATER_MARK: number = 1024 * 1024;
