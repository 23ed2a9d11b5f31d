/**
 * Handler options resolved once, and the fixed answers the handlers send themselves.
 *
 * @module
 */
import { DEFAULT_MAX_MESSAGE_BYTES, ErrorCode, serializeError } from '@jsonrpc-kit/core';
import { DEFAULT_BODY_TIMEOUT, DEFAULT_HTTP_ERROR_CODE } from './constants.js';
import { type CorsPolicy, resolveCors } from './cors.js';
import type { Authenticate, HttpHandlerOptions, StatusPolicy } from './handler-options.js';
import { defaultStatus } from './handler-options.js';
import { HttpError } from './http-error.js';

/** {@link HttpHandlerOptions} with every default applied. */
export interface ResolvedHandlerOptions {
  readonly maxMessageBytes: number;
  readonly bodyTimeout: number;
  /** Refuse a POST without a `Content-Type`. */
  readonly requireJsonContentType: boolean;
  readonly status: StatusPolicy;
  readonly cors: CorsPolicy | undefined;
  readonly authenticate: Authenticate | undefined;
  readonly onError: (error: unknown) => void;
  /** The `Allow` header of a 405. */
  readonly allow: string;
  /** The 413 body. */
  readonly tooLargeBody: string;
}

function ignore(): void {}

function nonNegative(name: string, value: number): number {
  if (!(value >= 0) || !Number.isFinite(value)) {
    throw new RangeError(`${name} must be a finite number >= 0, got ${value}`);
  }
  return value;
}

/**
 * Applies the defaults of {@link HttpHandlerOptions}.
 *
 * @param options - what the user gave
 * @param serverLimit - the limit set on the server, adopted when `options` set none
 * @param methods - the methods served besides OPTIONS (the `Allow` header and CORS preflights)
 * @returns the resolved options
 * @throws RangeError when `maxMessageBytes` or `bodyTimeout` is negative or not finite
 */
export function resolveHandlerOptions(
  options: HttpHandlerOptions,
  serverLimit?: number,
  methods = 'POST',
): ResolvedHandlerOptions {
  const cors = resolveCors(options.cors, `${methods}, OPTIONS`);
  const maxMessageBytes = nonNegative(
    'maxMessageBytes',
    options.maxMessageBytes ?? serverLimit ?? DEFAULT_MAX_MESSAGE_BYTES,
  );
  return {
    maxMessageBytes,
    bodyTimeout: nonNegative('bodyTimeout', options.bodyTimeout ?? DEFAULT_BODY_TIMEOUT),
    requireJsonContentType: options.requireJsonContentType !== false,
    status: options.status ?? defaultStatus,
    cors,
    authenticate: options.authenticate,
    onError: options.onError ?? ignore,
    allow: cors === undefined ? methods : `${methods}, OPTIONS`,
    tooLargeBody: serializeError(null, {
      code: ErrorCode.RequestTooLarge,
      message: 'Request too large',
      data: { maxRequestBytes: maxMessageBytes },
    }),
  };
}

/** 405: not POST. */
export const METHOD_NOT_ALLOWED_BODY: string = serializeError(null, {
  code: ErrorCode.InvalidRequest,
  message: 'Method not allowed: use POST',
});
/** 415: not a JSON content type. */
export const UNSUPPORTED_MEDIA_TYPE_BODY: string = serializeError(null, {
  code: ErrorCode.InvalidRequest,
  message: 'Unsupported content type: use application/json',
});
/** 408: the body did not arrive in time. */
export const BODY_TIMEOUT_BODY: string = serializeError(null, {
  code: ErrorCode.InvalidRequest,
  message: 'Request body timed out',
});
/** 400: the body could not be read. */
export const BAD_BODY_BODY: string = serializeError(null, {
  code: ErrorCode.InvalidRequest,
  message: 'Request body could not be read',
});
/** 500: the server's `handle` rejected. */
export const INTERNAL_ERROR_BODY: string = serializeError(null, {
  code: ErrorCode.InternalError,
  message: 'Internal error',
});

const UNAUTHORIZED_BODY: string = serializeError(null, {
  code: DEFAULT_HTTP_ERROR_CODE,
  message: 'Unauthorized',
});

/** An answer the handler sends instead of dispatching. */
export interface Rejection {
  readonly status: number;
  readonly body: string;
  /** Extra headers, flat name/value list. */
  readonly headers: readonly string[];
}

/**
 * Turns what an `authenticate` hook threw or returned into the answer.
 *
 * @param error - an {@link HttpError}, or anything else (then 401)
 * @param onError - told about anything that is not an `HttpError`
 * @returns status, body and headers
 */
export function rejectionOf(error: unknown, onError: (error: unknown) => void): Rejection {
  if (error instanceof HttpError) {
    const headers: string[] = [];
    if (error.headers !== undefined) {
      for (const name of Object.keys(error.headers)) {
        headers.push(name.toLowerCase(), error.headers[name]!);
      }
    }
    return {
      status: error.status,
      body: serializeError(null, { code: error.code, message: error.message, data: error.data }),
      headers,
    };
  }
  onError(error);
  return { status: 401, body: UNAUTHORIZED_BODY, headers: [] };
}

/**
 * Whether a status may carry a body.
 *
 * @param status - an HTTP status
 * @returns false for 1xx, 204, 205 and 304
 */
export function statusHasBody(status: number): boolean {
  return !(status < 200 || status === 204 || status === 205 || status === 304);
}
