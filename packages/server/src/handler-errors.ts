/**
 * How a handler's failure becomes the wire error to answer (the `errorHandler` mapping, the
 * `exposeErrorDetails` policy, a code the wire cannot carry), and how a notification's failure is
 * reported.
 *
 * @module
 */
import {
  ConnectionClosedError,
  ErrorCode,
  type ErrorKind,
  type ErrorLevel,
  isJsonRpcError,
  type JsonRpcErrorObject,
  type JsonRpcId,
  MethodNotFoundError,
} from '@jsonrpc-kit/core';
import type { DispatcherConfig } from './scope.js';

const INTERNAL_ERROR: JsonRpcErrorObject = Object.freeze({
  code: ErrorCode.InternalError,
  message: 'Internal error',
});

/** What {@link createHandlerErrors} offers the dispatcher. */
export interface HandlerErrors {
  /** The wire error for anything thrown by a request; unexpected failures are reported. */
  errorObject(error: unknown, method: string, id: JsonRpcId): JsonRpcErrorObject;
  /** Reports a notification's failure (an unknown method at debug level). */
  notificationFailed(method: string, error: unknown): void;
}

/**
 * Creates the failure handling of one server's dispatcher.
 *
 * @param config - the error hook, the error details policy and the error mapping
 * @returns the error mapping and the notification failure report
 */
export function createHandlerErrors(
  config: Pick<DispatcherConfig, 'exposeErrorDetails' | 'report' | 'policies'>,
): HandlerErrors {
  const { exposeErrorDetails, report } = config;
  const { errorHandler } = config.policies;

  function errorObject(error: unknown, method: string, id: JsonRpcId): JsonRpcErrorObject {
    if (isJsonRpcError(error)) {
      if (Number.isInteger(error.code)) return error.toErrorObject();
      // A code the wire cannot carry: refused here, answered as an internal error.
      report(
        new TypeError(`A handler threw a JsonRpcError whose code ${error.code} is not an integer`, {
          cause: error,
        }),
        {
          kind: 'handler-failed',
          level: 'error',
          method,
          id,
          notification: false,
        },
      );
      return INTERNAL_ERROR;
    }
    if (error instanceof ConnectionClosedError) {
      // The caller went away: routine, whatever the transport.
      report(error, { kind: 'caller-gone', level: 'debug', method, id, notification: false });
    } else {
      report(error, { kind: 'handler-failed', level: 'error', method, id, notification: false });
    }
    if (errorHandler !== undefined) {
      const mapped = mapError(error, method, id);
      if (mapped !== undefined) return mapped;
    }
    if (!exposeErrorDetails) return INTERNAL_ERROR;
    const message =
      error instanceof Error
        ? error.message || 'Internal error'
        : `Internal error: ${String(error)}`;
    const stack = error instanceof Error ? error.stack : undefined;
    return stack === undefined
      ? { code: ErrorCode.InternalError, message }
      : { code: ErrorCode.InternalError, message, data: { stack } };
  }

  /** The errorHandler's answer, when it gives a well-formed one; its throws are reported. */
  function mapError(error: unknown, method: string, id: JsonRpcId): JsonRpcErrorObject | undefined {
    let mapped: JsonRpcErrorObject | undefined;
    try {
      mapped = errorHandler!(error, { method, id });
    } catch (failure) {
      report(failure, { kind: 'handler-failed', level: 'error', method, id, notification: false });
      return undefined;
    }
    if (mapped === undefined) return undefined;
    if (!Number.isInteger(mapped.code) || typeof mapped.message !== 'string') {
      report(
        new TypeError(
          'errorHandler returned an error object without an integer code and a string message',
        ),
        {
          kind: 'handler-failed',
          level: 'error',
          method,
          id,
          notification: false,
        },
      );
      return undefined;
    }
    return mapped.data === undefined
      ? { code: mapped.code, message: mapped.message }
      : { code: mapped.code, message: mapped.message, data: mapped.data };
  }

  function notificationFailed(method: string, error: unknown): void {
    if (error instanceof ConnectionClosedError) {
      report(error, { kind: 'caller-gone', level: 'debug', method, notification: true });
      return;
    }
    let kind: ErrorKind = 'notification-failed';
    let level: ErrorLevel = 'error';
    if (error instanceof MethodNotFoundError) {
      kind = 'unknown-notification';
      level = 'debug';
    } else if (isJsonRpcError(error)) level = 'warn';
    report(error, { kind, level, method, notification: true });
  }

  return { errorObject, notificationFailed };
}
