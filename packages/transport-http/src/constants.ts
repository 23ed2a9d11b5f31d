/**
 * Defaults of the HTTP handlers and the HTTP client transport.
 *
 * @module
 */

/**
 * After an early answer (413, 415, a refused authentication), how many more body bytes the
 * handlers read and drop before closing the connection, so that a client still writing its body
 * can read the answer instead of seeing the connection reset.
 *
 * @default 4194304 (4 MiB)
 */
export const DISCARD_BYTES: number = 4 * 1024 * 1024;

/**
 * After an early answer, how many milliseconds the handlers keep reading and dropping the body
 * before closing the connection.
 *
 * @default 1000
 */
export const DISCARD_TIMEOUT: number = 1_000;

/**
 * Milliseconds a handler waits for the whole request body before answering 408.
 *
 * @default 30000
 */
export const DEFAULT_BODY_TIMEOUT: number = 30_000;

/**
 * Seconds a browser may cache a CORS preflight answer (`Access-Control-Max-Age`).
 *
 * @default 600
 */
export const DEFAULT_CORS_MAX_AGE: number = 600;

/**
 * The JSON-RPC error code of the body sent with an HTTP rejection (401, 403, …) when the
 * {@link HttpError} names none: the first code of the implementation-defined server range.
 *
 * @default -32000
 */
export const DEFAULT_HTTP_ERROR_CODE: number = -32000;

/**
 * Milliseconds the client transport waits for one HTTP exchange; `0` waits forever (the client's
 * own per-call timeouts still apply).
 *
 * @default 0
 */
export const DEFAULT_HTTP_TIMEOUT: number = 0;

/**
 * Milliseconds the Node client transport keeps an idle connection open for reuse.
 *
 * @default 4000
 */
export const DEFAULT_KEEP_ALIVE_TIMEOUT: number = 4_000;
