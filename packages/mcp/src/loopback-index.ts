/**
 * The redirect receiver of a CLI or desktop MCP host on Node (RFC 8252): `createLoopbackReceiver`
 * listens on 127.0.0.1 for the authorization server's redirect and is the browser step of
 * `createOAuthClient`.
 *
 * @module
 */
export type { LoopbackReceiver, LoopbackReceiverOptions } from './auth/loopback.js';
export { createLoopbackReceiver } from './auth/loopback.js';
