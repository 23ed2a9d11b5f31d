/**
 * JSON-RPC 2.0 over HTTP on Node: the node:http handler, `listen()`, the fetch handler, and the
 * client transport on an undici keep-alive pool. Selected by the `node` export condition, or
 * imported as `@jsonrpc-kit/transport-http/node`. Everything of the runtime-neutral entry is here
 * too; its fetch-based `createHttpTransport` gives way to the undici one (an explicit export
 * shadows the star export of the same name).
 *
 * @module
 */

export { DEFAULT_KEEP_ALIVE_TIMEOUT } from './constants.js';
export * from './index.js';
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
export type { StreamableNodeHttpHandler } from './streamable-node.js';
export { createStreamableHttpNodeHandler } from './streamable-node.js';
