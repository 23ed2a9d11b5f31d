/**
 * How an incoming call's failure becomes the wire error to answer (a `JsonRpcError` as it is, an
 * `errorHandler`'s mapping, the `exposeErrorDetails` policy, -32603 otherwise, a code the wire
 * cannot carry refused), and how a notification's failure is reported. Part of the incoming-call
 * runner; the server and the client differ only in the options they pass.
 *
 * @module
 */
import { ConnectionClosedError, ErrorCode, isJsonRpcError, MethodNotFoundError } from './errors.js';
import type { JsonRpcErrorObject, JsonRpcId } from './messages.js';
import type { ErrorInfo, ErrorKind, ErrorLevel } from './report.js';

const INTERNAL_ERROR: JsonRpcErrorObject = Object.freeze({
  code: ErrorCode.InternalError,
  message: 'Internal error',
});

/** Maps a handler's failure to the error object to answer; `undefined` keeps the default -32603. */
export type ErrorHandler = (
  error: unknown,
  call: { readonly method: string; readonly id: JsonRpcId },
) => JsonRpcErrorObject | undefined;

/**
 * Where the runner's failures go: the error, what happened, and whether it belongs to a
 * notification (nobody is answered).
 */
export type RunnerReport = (error: unknown, info: ErrorInfo, notification: boolean) => void;

/** Options of {@link createCallFailures}. */
export interface CallFailureOptions {
  /** Where failures go. */
  readonly report: RunnerReport;
  /** Maps a thrown value that is not a `JsonRpcError` to an error object. @default none */
  readonly errorHandler?: ErrorHandler | undefined;
  /** Answer an unexpected failure with its message and stack instead of "Internal error". @default false */
  readonly exposeErrorDetails?: boolean | undefined;
}

/** What {@link createCallFailures} makes. */
export interface CallFailures {
  /**
   * The wire error for anything a request failed with; unexpected failures are reported.
   *
   * @param error - what the call threw or rejected with
   * @param method - its method
   * @param id - its id
   * @returns the error object to answer
   */
  errorObject(error: unknown, method: string, id: JsonRpcId): JsonRpcErrorObject;
  /**
   * Reports a notification's failure (an unknown method at debug level).
   *
   * @param method - its method
   * @param error - what it threw or rejected with
   */
  notificationFailed(method: string, error: unknown): void;
}

/**
 * Creates the failure mapping of one runner.
 *
 * @param options - the report hook, the error mapping and the error details policy
 * @returns the error mapping and the notification failure report
 */
export function createCallFailures(options: CallFailureOptions): CallFailures {
  const { report, errorHandler } = options;
  const exposeErrorDetails = options.exposeErrorDetails === true;

  const failed = (error: unknown, method: string, id: JsonRpcId): void =>
    report(error, { kind: 'handler-failed', level: 'error', method, id }, false);

  function errorObject(error: unknown, method: string, id: JsonRpcId): JsonRpcErrorObject {
    if (isJsonRpcError(error)) {
      if (Number.isInteger(error.code)) return error.toErrorObject();
      // A code the wire cannot carry: refused here, answered as an internal error.
      failed(
        new TypeError(`A handler threw a JsonRpcError whose code ${error.code} is not an integer`, {
          cause: error,
        }),
        method,
        id,
      );
      return INTERNAL_ERROR;
    }
    if (error instanceof ConnectionClosedError) {
      // The caller went away: routine, whatever the transport.
      report(error, { kind: 'caller-gone', level: 'debug', method, id }, false);
    } else {
      failed(error, method, id);
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
      failed(failure, method, id);
      return undefined;
    }
    if (mapped === undefined) return undefined;
    if (!Number.isInteger(mapped.code) || typeof mapped.message !== 'string') {
      failed(
        new TypeError(
          'errorHandler returned an error object without an integer code and a string message',
        ),
        method,
        id,
      );
      return undefined;
    }
    return mapped.data === undefined
      ? { code: mapped.code, message: mapped.message }
      : { code: mapped.code, message: mapped.message, data: mapped.data };
  }

  function notificationFailed(method: string, error: unknown): void {
    if (error instanceof ConnectionClosedError) {
      report(error, { kind: 'caller-gone', level: 'debug', method }, true);
      return;
    }
    let kind: ErrorKind = 'notification-failed';
    let level: ErrorLevel = 'error';
    if (error instanceof MethodNotFoundError) {
      kind = 'unknown-notification';
      level = 'debug';
    } else if (isJsonRpcError(error)) level = 'warn';
    report(error, { kind, level, method }, true);
  }

  return { errorObject, notificationFailed };
}
