/**
 * The rejection an `authenticate` hook throws (or returns) to refuse a request.
 *
 * @module
 */
import { DEFAULT_HTTP_ERROR_CODE } from './constants.js';

const brand: unique symbol = Symbol.for('@jsonrpc-kit/transport-http/HttpError');

/** Options of an {@link HttpError}. */
export interface HttpErrorOptions {
  /**
   * The JSON-RPC error code of the answer's body.
   *
   * @default -32000 ({@link DEFAULT_HTTP_ERROR_CODE})
   */
  readonly code?: number;
  /** The `data` member of the answer's error object. */
  readonly data?: unknown;
  /** Extra response headers, such as `www-authenticate`. */
  readonly headers?: Readonly<Record<string, string>>;
  /** The underlying failure. */
  readonly cause?: unknown;
}

function defaultMessage(status: number): string {
  if (status === 401) return 'Unauthorized';
  if (status === 403) return 'Forbidden';
  return 'Request rejected';
}

/**
 * Refuses an HTTP request before dispatch: the handler answers with `status` and a JSON-RPC error
 * body (`id: null`, `code`, `message`, `data`). Throw or return it from an `authenticate` hook.
 *
 * @example
 * ```ts
 * const handler = createFetchHandler(server, {
 *   authenticate: (ctx) => {
 *     if (ctx.headers?.authorization !== 'Bearer secret') throw new HttpError(401);
 *     return { user: 'admin' };
 *   },
 * });
 * ```
 */
export class HttpError extends Error {
  /** The HTTP status of the answer (401, 403, …). */
  readonly status: number;
  /** The JSON-RPC error code of the answer's body. */
  readonly code: number;
  /** The `data` member of the answer's error object. */
  readonly data: unknown;
  /** Extra response headers. */
  readonly headers: Readonly<Record<string, string>> | undefined;

  /**
   * @param status - the HTTP status, 400 to 599 (401 and 403 are the usual ones)
   * @param message - the error message of the body; defaults to the status's name
   * @param options - JSON-RPC code, data, headers and cause
   * @throws RangeError when `status` is not an integer from 400 to 599
   */
  constructor(status: number, message?: string, options?: HttpErrorOptions) {
    if (!Number.isInteger(status) || status < 400 || status > 599) {
      throw new RangeError(`HttpError status must be 400..599, got ${status}`);
    }
    super(message ?? defaultMessage(status), { cause: options?.cause });
    this.name = 'HttpError';
    this.status = status;
    this.code = options?.code ?? DEFAULT_HTTP_ERROR_CODE;
    this.data = options?.data;
    this.headers = options?.headers;
    (this as unknown as Record<symbol, true>)[brand] = true;
  }

  /**
   * Recognises an `HttpError` even from another copy of this package.
   *
   * @param instance - any value
   * @returns whether it is an `HttpError`
   */
  static override [Symbol.hasInstance](instance: unknown): boolean {
    return (
      typeof instance === 'object' &&
      instance !== null &&
      (instance as Record<symbol, unknown>)[brand] === true
    );
  }
}
