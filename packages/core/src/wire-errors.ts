/**
 * The wire errors: {@link JsonRpcError} and one subclass per reserved code of {@link ErrorCode}.
 * They carry a numeric `code`, cross the wire as error objects, and are rebuilt on the receiving
 * side by {@link fromErrorObject}; {@link classifyErrorCode} says which range a code is in.
 *
 * @module
 */
import { brandedInstanceOf, type CallInfo, type JsonRpcErrorOptions } from './error-base.js';
import type { JsonRpcErrorObject, JsonRpcId } from './messages.js';

/** The error codes the kit uses on the wire. */
export const ErrorCode = {
  /** Invalid JSON was received. */
  ParseError: -32700,
  /** The JSON sent is not a valid request object, or the batch is empty. */
  InvalidRequest: -32600,
  /** The method does not exist or is not available. */
  MethodNotFound: -32601,
  /** Invalid method parameters. */
  InvalidParams: -32602,
  /** Internal JSON-RPC error: a handler failed unexpectedly. */
  InternalError: -32603,
  /** The caller cancelled the request. */
  RequestCancelled: -32001,
  /** A concurrency, queue or rate limit was hit. */
  ServerBusy: -32002,
  /** The batch is longer than the server accepts. */
  BatchTooLarge: -32003,
  /** The request body is larger than the server accepts. */
  RequestTooLarge: -32004,
  /** The server's own handler deadline passed. */
  RequestTimeout: -32005,
} as const;

/** One of the numeric codes of {@link ErrorCode}. */
export type ErrorCodeValue = (typeof ErrorCode)[keyof typeof ErrorCode];

const WIRE_BRAND: unique symbol = Symbol.for('@jsonrpc-kit/core/JsonRpcError') as never;

/**
 * An error that crosses the wire: a numeric `code`, a `message` and optional `data`.
 * Throw it from a handler to answer with exactly that error object.
 *
 * @example
 * ```ts
 * throw new JsonRpcError(1001, 'Division by zero', { dividend: 1 });
 * ```
 */
export class JsonRpcError extends Error {
  /** The numeric error code sent on the wire. */
  readonly code: number;
  /** Additional information sent on the wire, if any. */
  readonly data: unknown;
  /** The method of the call that failed, set by the client. */
  readonly method: string | undefined;
  /** The id of the call that failed, set by the client. */
  readonly id: JsonRpcId | undefined;

  /**
   * @param code - the error code (an integer)
   * @param message - a short description
   * @param data - additional information, sent as the error object's `data` member
   * @param options - the call it belongs to, and a cause
   * @throws TypeError when `code` is not an integer (the specification requires one)
   */
  constructor(code: number, message: string, data?: unknown, options?: JsonRpcErrorOptions) {
    if (!Number.isInteger(code)) {
      throw new TypeError(`JSON-RPC error code must be an integer, got ${String(code)}`);
    }
    super(message, options?.cause === undefined ? undefined : { cause: options.cause });
    this.name = 'JsonRpcError';
    this.code = code;
    this.data = data;
    this.method = options?.method;
    this.id = options?.id;
    Object.defineProperty(this, WIRE_BRAND, { value: true });
  }

  /** Recognizes instances from any copy of this package. */
  static override [Symbol.hasInstance](instance: unknown): boolean {
    return brandedInstanceOf(this, JsonRpcError, WIRE_BRAND, instance);
  }

  /**
   * The error object to put on the wire.
   *
   * @returns `{ code, message }` plus `data` when it is defined
   */
  toErrorObject(): JsonRpcErrorObject {
    return this.data === undefined
      ? { code: this.code, message: this.message }
      : { code: this.code, message: this.message, data: this.data };
  }

  /** The same as {@link JsonRpcError.toErrorObject}, so `JSON.stringify(error)` gives the wire form. */
  toJSON(): JsonRpcErrorObject {
    return this.toErrorObject();
  }
}

/** -32700: the text is not JSON. */
export class ParseError extends JsonRpcError {
  /** The code of this class. */
  static readonly code: -32700 = ErrorCode.ParseError;
  /**
   * @param message - @default "Parse error"
   * @param data - additional information
   * @param options - the call it belongs to, and a cause
   */
  constructor(message = 'Parse error', data?: unknown, options?: JsonRpcErrorOptions) {
    super(ErrorCode.ParseError, message, data, options);
    this.name = 'ParseError';
  }
}

/** -32600: the JSON is not a valid request object, or the batch is empty. */
export class InvalidRequestError extends JsonRpcError {
  /** The code of this class. */
  static readonly code: -32600 = ErrorCode.InvalidRequest;
  /**
   * @param message - @default "Invalid Request"
   * @param data - additional information
   * @param options - the call it belongs to, and a cause
   */
  constructor(message = 'Invalid Request', data?: unknown, options?: JsonRpcErrorOptions) {
    super(ErrorCode.InvalidRequest, message, data, options);
    this.name = 'InvalidRequestError';
  }
}

/** -32601: no such method. */
export class MethodNotFoundError extends JsonRpcError {
  /** The code of this class. */
  static readonly code: -32601 = ErrorCode.MethodNotFound;
  /**
   * @param message - @default "Method not found"
   * @param data - additional information
   * @param options - the call it belongs to, and a cause
   */
  constructor(message = 'Method not found', data?: unknown, options?: JsonRpcErrorOptions) {
    super(ErrorCode.MethodNotFound, message, data, options);
    this.name = 'MethodNotFoundError';
  }
}

/** -32602: the params are not an array or object, or the method's schema rejects them. */
export class InvalidParamsError extends JsonRpcError {
  /** The code of this class. */
  static readonly code: -32602 = ErrorCode.InvalidParams;
  /**
   * @param message - @default "Invalid params"
   * @param data - additional information (the schema's issues)
   * @param options - the call it belongs to, and a cause
   */
  constructor(message = 'Invalid params', data?: unknown, options?: JsonRpcErrorOptions) {
    super(ErrorCode.InvalidParams, message, data, options);
    this.name = 'InvalidParamsError';
  }
}

/** -32603: a handler failed with something that is not a {@link JsonRpcError}. */
export class InternalError extends JsonRpcError {
  /** The code of this class. */
  static readonly code: -32603 = ErrorCode.InternalError;
  /**
   * @param message - @default "Internal error"
   * @param data - additional information
   * @param options - the call it belongs to, and a cause
   */
  constructor(message = 'Internal error', data?: unknown, options?: JsonRpcErrorOptions) {
    super(ErrorCode.InternalError, message, data, options);
    this.name = 'InternalError';
  }
}

/** -32001: the caller cancelled the request. */
export class RequestCancelledError extends JsonRpcError {
  /** The code of this class. */
  static readonly code: -32001 = ErrorCode.RequestCancelled;
  /**
   * @param message - @default "Request cancelled"
   * @param data - additional information
   * @param options - the call it belongs to, and a cause
   */
  constructor(message = 'Request cancelled', data?: unknown, options?: JsonRpcErrorOptions) {
    super(ErrorCode.RequestCancelled, message, data, options);
    this.name = 'RequestCancelledError';
  }
}

/** -32002: a concurrency, queue or rate limit was hit. */
export class ServerBusyError extends JsonRpcError {
  /** The code of this class. */
  static readonly code: -32002 = ErrorCode.ServerBusy;
  /**
   * @param message - @default "Server busy"
   * @param data - additional information
   * @param options - the call it belongs to, and a cause
   */
  constructor(message = 'Server busy', data?: unknown, options?: JsonRpcErrorOptions) {
    super(ErrorCode.ServerBusy, message, data, options);
    this.name = 'ServerBusyError';
  }
}

/** -32003: the batch is longer than `maxBatchSize`. */
export class BatchTooLargeError extends JsonRpcError {
  /** The code of this class. */
  static readonly code: -32003 = ErrorCode.BatchTooLarge;
  /**
   * @param message - @default "Batch too large"
   * @param data - additional information
   * @param options - the call it belongs to, and a cause
   */
  constructor(message = 'Batch too large', data?: unknown, options?: JsonRpcErrorOptions) {
    super(ErrorCode.BatchTooLarge, message, data, options);
    this.name = 'BatchTooLargeError';
  }
}

/** -32004: the text is larger than the endpoint's `maxMessageBytes`. */
export class RequestTooLargeError extends JsonRpcError {
  /** The code of this class. */
  static readonly code: -32004 = ErrorCode.RequestTooLarge;
  /**
   * @param message - @default "Request too large"
   * @param data - additional information
   * @param options - the call it belongs to, and a cause
   */
  constructor(message = 'Request too large', data?: unknown, options?: JsonRpcErrorOptions) {
    super(ErrorCode.RequestTooLarge, message, data, options);
    this.name = 'RequestTooLargeError';
  }
}

/** -32005: the server's own handler deadline passed. */
export class RequestTimeoutError extends JsonRpcError {
  /** The code of this class. */
  static readonly code: -32005 = ErrorCode.RequestTimeout;
  /**
   * @param message - @default "Request timed out"
   * @param data - additional information
   * @param options - the call it belongs to, and a cause
   */
  constructor(message = 'Request timed out', data?: unknown, options?: JsonRpcErrorOptions) {
    super(ErrorCode.RequestTimeout, message, data, options);
    this.name = 'RequestTimeoutError';
  }
}

type WireErrorClass = new (
  message?: string,
  data?: unknown,
  options?: JsonRpcErrorOptions,
) => JsonRpcError;

const classByCode: ReadonlyMap<number, WireErrorClass> = new Map<number, WireErrorClass>([
  [ErrorCode.ParseError, ParseError],
  [ErrorCode.InvalidRequest, InvalidRequestError],
  [ErrorCode.MethodNotFound, MethodNotFoundError],
  [ErrorCode.InvalidParams, InvalidParamsError],
  [ErrorCode.InternalError, InternalError],
  [ErrorCode.RequestCancelled, RequestCancelledError],
  [ErrorCode.ServerBusy, ServerBusyError],
  [ErrorCode.BatchTooLarge, BatchTooLargeError],
  [ErrorCode.RequestTooLarge, RequestTooLargeError],
  [ErrorCode.RequestTimeout, RequestTimeoutError],
]);

/**
 * Turns a wire error object into the matching error class: a subclass for the codes of
 * {@link ErrorCode}, a plain {@link JsonRpcError} for application codes.
 *
 * @param error - the `error` member of an error response
 * @param call - the call it answers (method and id), kept on the error
 * @returns the error to reject the call with
 * @example
 * ```ts
 * const e = fromErrorObject({ code: -32601, message: 'Method not found' });
 * e instanceof MethodNotFoundError; // true
 * ```
 */
export function fromErrorObject(error: JsonRpcErrorObject, call?: CallInfo): JsonRpcError {
  const options: JsonRpcErrorOptions = { method: call?.method, id: call?.id };
  const Class = classByCode.get(error.code);
  return Class === undefined
    ? new JsonRpcError(error.code, error.message, error.data, options)
    : new Class(error.message, error.data, options);
}

/**
 * Whether `value` is a {@link JsonRpcError} from any copy of this package.
 *
 * @param value - anything
 * @returns `true` for a wire error
 * @example
 * ```ts
 * if (isJsonRpcError(error) && error.code === ErrorCode.MethodNotFound) console.log(error.method);
 * ```
 */
export function isJsonRpcError(value: unknown): value is JsonRpcError {
  return value instanceof JsonRpcError;
}

/**
 * Which range an error code is in: `"standard"` for the spec's reserved range outside the server
 * range (-32768 to -32100: -32700, -32600…-32603 and the codes the spec keeps for itself),
 * `"server-reserved"` for -32099 to -32000 (implementation-defined server errors, where the kit's
 * -32001…-32005 live), `"custom"` for every other integer (the application's own codes).
 *
 * @param code - an error code
 * @returns its class
 * @throws TypeError when `code` is not an integer
 * @example
 * ```ts
 * classifyErrorCode(-32601); // 'standard'
 * classifyErrorCode(-32002); // 'server-reserved'
 * classifyErrorCode(1001); // 'custom'
 * ```
 */
export function classifyErrorCode(code: number): 'standard' | 'server-reserved' | 'custom' {
  if (!Number.isInteger(code)) throw new TypeError(`An error code must be an integer, got ${code}`);
  if (code >= -32099 && code <= -32000) return 'server-reserved';
  if (code >= -32768 && code <= -32000) return 'standard';
  return 'custom';
}
