/**
 * Options shared by the node:http handler and the fetch handler.
 *
 * @module
 */
import type { TransportContext } from '@jsonrpc-kit/core';

/** Cross-origin settings of the handlers (`cors: true` uses every default). */
export interface CorsOptions {
  /**
   * Which origins may call: `'*'` (any, the default), one origin, a list, or a predicate. Allowed
   * origins other than `'*'` are echoed back with `Vary: Origin`.
   *
   * @default '*'
   */
  readonly origin?: string | readonly string[] | ((origin: string) => boolean);
  /**
   * Request headers a browser may send (`Access-Control-Allow-Headers`). Unset: whatever the
   * preflight asks for (`Access-Control-Request-Headers`) is allowed.
   */
  readonly headers?: readonly string[];
  /** Response headers scripts may read (`Access-Control-Expose-Headers`). */
  readonly exposeHeaders?: readonly string[];
  /**
   * Seconds a browser may cache the preflight answer.
   *
   * @default 600 ({@link DEFAULT_CORS_MAX_AGE})
   */
  readonly maxAge?: number;
  /**
   * Allow cookies and HTTP auth (`Access-Control-Allow-Credentials: true`); the origin is then
   * always echoed, never `'*'`.
   *
   * @default false
   */
  readonly credentials?: boolean;
}

/**
 * Decides who may call. Return (or resolve to) anything to accept: it becomes `ctx.auth` of the
 * exchange. Throw (or return) an {@link HttpError} to refuse with its status; anything else thrown
 * refuses with 401.
 */
export type Authenticate = (context: TransportContext) => unknown;

/** Maps the server's answer to the HTTP status: `undefined` means nothing to answer. */
export type StatusPolicy = (answer: string | undefined) => number;

/** Options of `createHttpHandler`, `createFetchHandler` and `listen`. */
export interface HttpHandlerOptions {
  /**
   * The largest body read, in bytes; larger ones are answered 413 with a -32004 body. The server
   * applies the same limit to the exchange (it gets it in `ctx.transport.maxMessageBytes`).
   *
   * @default the server's `maxMessageBytes` when one was set, else 1048576
   *   (core's `DEFAULT_MAX_MESSAGE_BYTES`)
   */
  readonly maxMessageBytes?: number;
  /**
   * Milliseconds to wait for the whole body before answering 408. `0` waits forever. On
   * node:http one timer watches every body, so a body times out up to half this later (at least
   * 20 ms later).
   *
   * @default 30000 ({@link DEFAULT_BODY_TIMEOUT})
   */
  readonly bodyTimeout?: number;
  /**
   * Refuse (415) a POST without a `Content-Type` header. A browser page on another site can send
   * a "simple" cross-origin POST without one (`fetch(url, { method: 'POST', mode: 'no-cors',
   * body })`, no preflight); requiring `application/json` makes the browser ask first (CORS
   * preflight), so such a page cannot run a method. Set `false` only for endpoints no browser
   * can reach (service-to-service, behind a gateway) whose clients send no content type.
   *
   * @default true
   */
  readonly requireJsonContentType?: boolean;
  /**
   * The status of a JSON-RPC answer.
   *
   * @default {@link defaultStatus}: 200 for every answer (errors included), 204 for none
   */
  readonly status?: StatusPolicy;
  /** Cross-origin requests: `true` for the defaults of {@link CorsOptions}. Off by default. */
  readonly cors?: boolean | CorsOptions;
  /** Runs before dispatch; see {@link Authenticate}. */
  readonly authenticate?: Authenticate;
  /**
   * Reports failures that cannot be answered on the wire: a server whose `handle` rejected, an
   * `authenticate` hook that threw something other than an {@link HttpError}.
   */
  readonly onError?: (error: unknown) => void;
}

/**
 * The default status policy: 200 for every JSON-RPC answer, errors included; 204 when there is
 * nothing to answer (notifications only).
 *
 * @param answer - the answer text, or `undefined`
 * @returns 200 or 204
 * @example
 * ```ts
 * defaultStatus('{"jsonrpc":"2.0","id":1,"result":3}'); // 200
 * defaultStatus(undefined); // 204
 * ```
 */
export function defaultStatus(answer: string | undefined): number {
  return answer === undefined ? 204 : 200;
}
