/**
 * The local errors: {@link LocalError} and its subclasses ({@link TimeoutError},
 * {@link AbortError}, {@link ConnectionClosedError}, {@link TransportError},
 * {@link ProtocolError}). They carry a string `code` from {@link LocalErrorCode}, never cross the
 * wire, and say which call failed.
 *
 * @module
 */
import { brandedInstanceOf, type CallInfo, type JsonRpcErrorOptions } from './error-base.js';
import type { JsonRpcId } from './messages.js';

const LOCAL_BRAND: unique symbol = Symbol.for('@jsonrpc-kit/core/LocalError') as never;

/** The string codes of the local error family. */
export const LocalErrorCode = {
  /** The call's own deadline passed before an answer came. */
  Timeout: 'TIMEOUT',
  /** The caller aborted the call through its `AbortSignal`. */
  Aborted: 'ABORTED',
  /** The connection closed before the call was answered. */
  ConnectionClosed: 'CONNECTION_CLOSED',
  /** The transport failed to deliver the call or its answer (network, HTTP status, framing). */
  Transport: 'TRANSPORT_ERROR',
  /** The peer answered with something that is not a valid JSON-RPC response. */
  Protocol: 'PROTOCOL_ERROR',
} as const;

/** One of the string codes of {@link LocalErrorCode}. */
export type LocalErrorCodeValue = (typeof LocalErrorCode)[keyof typeof LocalErrorCode];

/**
 * Base of the local errors: failures that never crossed the wire. `code` is a string from
 * {@link LocalErrorCode}; `method` and `id` name the call that failed.
 */
export class LocalError extends Error {
  /** What went wrong, as a stable string. */
  readonly code: LocalErrorCodeValue;
  /** The method of the call that failed, when one did. */
  readonly method: string | undefined;
  /** The id of the call that failed, when one did. */
  readonly id: JsonRpcId | undefined;

  /**
   * @param code - the local error code
   * @param message - a description
   * @param options - the call it belongs to, and a cause
   */
  constructor(code: LocalErrorCodeValue, message: string, options?: JsonRpcErrorOptions) {
    super(message, options?.cause === undefined ? undefined : { cause: options.cause });
    this.name = 'LocalError';
    this.code = code;
    this.method = options?.method;
    this.id = options?.id;
    Object.defineProperty(this, LOCAL_BRAND, { value: true });
  }

  /** Recognizes instances from any copy of this package. */
  static override [Symbol.hasInstance](instance: unknown): boolean {
    return brandedInstanceOf(this, LocalError, LOCAL_BRAND, instance);
  }
}

function describeCall(call: CallInfo | undefined): string {
  if (call?.method === undefined) return '';
  return call.id === undefined
    ? ` (${call.method})`
    : ` (${call.method}, id ${JSON.stringify(call.id)})`;
}

/** The call's deadline passed before an answer came. */
export class TimeoutError extends LocalError {
  /** The code of this class. */
  static readonly code: 'TIMEOUT' = LocalErrorCode.Timeout;
  /** The deadline that passed, in milliseconds. */
  readonly timeout: number;
  /**
   * @param timeout - the deadline in milliseconds
   * @param options - the call it belongs to
   */
  constructor(timeout: number, options?: JsonRpcErrorOptions) {
    super(
      LocalErrorCode.Timeout,
      `Request timed out after ${timeout} ms${describeCall(options)}`,
      options,
    );
    this.name = 'TimeoutError';
    this.timeout = timeout;
  }
}

/** The caller aborted the call; `cause` is the signal's reason. */
export class AbortError extends LocalError {
  /** The code of this class. */
  static readonly code: 'ABORTED' = LocalErrorCode.Aborted;
  /**
   * @param options - the call it belongs to, and the abort reason as `cause`
   */
  constructor(options?: JsonRpcErrorOptions) {
    super(LocalErrorCode.Aborted, `Request aborted${describeCall(options)}`, options);
    this.name = 'AbortError';
  }
}

/** The connection closed before the call was answered. */
export class ConnectionClosedError extends LocalError {
  /** The code of this class. */
  static readonly code: 'CONNECTION_CLOSED' = LocalErrorCode.ConnectionClosed;
  /**
   * @param message - @default "Connection closed"
   * @param options - the call it belongs to, and the close error as `cause`
   */
  constructor(message = 'Connection closed', options?: JsonRpcErrorOptions) {
    super(LocalErrorCode.ConnectionClosed, `${message}${describeCall(options)}`, options);
    this.name = 'ConnectionClosedError';
  }
}

/** Options of {@link ProtocolError}. */
export interface ProtocolErrorOptions extends JsonRpcErrorOptions {
  /** The response check that refused the answer. */
  readonly rule?: string | undefined;
}

/** Options of {@link TransportError}. */
export interface TransportErrorOptions extends JsonRpcErrorOptions {
  /** The HTTP status, for HTTP transports. */
  readonly status?: number | undefined;
  /** The body text of a failed HTTP answer. */
  readonly body?: string | undefined;
}

/** The transport failed: a network error, a non-2xx HTTP status, a broken frame. */
export class TransportError extends LocalError {
  /** The code of this class. */
  static readonly code: 'TRANSPORT_ERROR' = LocalErrorCode.Transport;
  /** The HTTP status, when the transport is HTTP. */
  readonly status: number | undefined;
  /** The body of a failed HTTP answer, when there was one. */
  readonly body: string | undefined;
  /**
   * @param message - a description
   * @param options - status, body, the call it belongs to, and a cause
   */
  constructor(message: string, options?: TransportErrorOptions) {
    super(LocalErrorCode.Transport, `${message}${describeCall(options)}`, options);
    this.name = 'TransportError';
    this.status = options?.status;
    this.body = options?.body;
  }
}

/** The peer sent something that is not a valid JSON-RPC message where one was expected. */
export class ProtocolError extends LocalError {
  /** The code of this class. */
  static readonly code: 'PROTOCOL_ERROR' = LocalErrorCode.Protocol;
  /** The offending text or value, when there is one. */
  readonly received: unknown;
  /**
   * The response check that refused an answer (`requireExclusiveResultOrError`, say: an option of
   * the client's `responseChecks`), when one did.
   */
  readonly rule: string | undefined;
  /**
   * @param message - what is wrong
   * @param received - the offending text or value
   * @param options - the call it belongs to, a cause, and the response check that refused it
   */
  constructor(message: string, received?: unknown, options?: ProtocolErrorOptions) {
    super(LocalErrorCode.Protocol, `${message}${describeCall(options)}`, options);
    this.name = 'ProtocolError';
    this.received = received;
    this.rule = options?.rule;
  }
}
