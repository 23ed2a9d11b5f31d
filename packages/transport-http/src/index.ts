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
  DEFAULT_MAX_REQUEST_BYTES,
  DISCARD_BYTES,
  DISCARD_TIMEOUT,
} from './constants.js';
export { isJsonContentType } from './content-type.js';
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
