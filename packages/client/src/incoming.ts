/**
 * Answers the requests and delivers the notifications the other side sends on a duplex
 * connection.
 *
 * @module
 */
import {
  ErrorCode,
  type IncomingContext,
  type IncomingNotificationHandler,
  type IncomingRequestHandler,
  isJsonRpcError,
  type JsonRpcErrorObject,
  type JsonRpcId,
  type JsonRpcNotification,
  type JsonRpcRequest,
  serializeError,
  serializeSuccess,
  UNSERIALIZABLE_RESULT,
} from '@jsonrpc-kit/core';

const METHOD_NOT_FOUND: JsonRpcErrorObject = Object.freeze({
  code: ErrorCode.MethodNotFound,
  message: 'Method not found',
});
const INTERNAL_ERROR: JsonRpcErrorObject = Object.freeze({
  code: ErrorCode.InternalError,
  message: 'Internal error',
});

/** Whether a value is a promise or another thenable. */
export function isThenable(value: unknown): value is PromiseLike<unknown> {
  return (
    value !== null &&
    (typeof value === 'object' || typeof value === 'function') &&
    typeof (value as { then?: unknown }).then === 'function'
  );
}

/** Answers incoming requests and delivers incoming notifications. Internal. */
export interface Incoming {
  /** The answer text for a request, or a promise of it. */
  request(message: JsonRpcRequest, rawId: string | undefined): string | Promise<string>;
  /** Delivers a notification; failures are reported. */
  notification(message: JsonRpcNotification): void;
}

/**
 * Builds the incoming side of a client.
 *
 * @param onRequest - the request handler, or `undefined` to answer -32601
 * @param onNotification - the notification handler
 * @param getContext - the context handed to handlers
 * @param report - where failures of handlers go
 * @returns the incoming side
 */
export function createIncoming(
  onRequest: IncomingRequestHandler | undefined,
  onNotification: IncomingNotificationHandler | undefined,
  getContext: () => IncomingContext,
  report: (error: Error) => void,
): Incoming {
  const errorAnswer = (id: JsonRpcId, rawId: string | undefined, error: unknown): string => {
    if (isJsonRpcError(error)) return serializeError(id, error.toErrorObject(), rawId);
    report(error instanceof Error ? error : new Error(String(error)));
    return serializeError(id, INTERNAL_ERROR, rawId);
  };

  const successAnswer = (id: JsonRpcId, rawId: string | undefined, result: unknown): string => {
    try {
      return serializeSuccess(id, result, rawId);
    } catch (error) {
      report(error as Error);
      return serializeError(id, UNSERIALIZABLE_RESULT, rawId);
    }
  };

  /** Answers an incoming request: the answer text, or a promise of it. */
  const onIncomingRequest = (
    message: JsonRpcRequest,
    rawId: string | undefined,
  ): string | Promise<string> => {
    const id = message.id;
    if (onRequest === undefined) return serializeError(id, METHOD_NOT_FOUND, rawId);
    let result: unknown;
    try {
      result = onRequest(message, getContext());
    } catch (error) {
      return errorAnswer(id, rawId, error);
    }
    if (!isThenable(result)) return successAnswer(id, rawId, result);
    return Promise.resolve(result).then(
      (value) => successAnswer(id, rawId, value),
      (error: unknown) => errorAnswer(id, rawId, error),
    );
  };

  const onIncomingNotification = (message: JsonRpcNotification): void => {
    if (onNotification === undefined) return;
    try {
      const result = onNotification(message, getContext());
      if (isThenable(result)) {
        Promise.resolve(result).then(undefined, (error: unknown) =>
          report(error instanceof Error ? error : new Error(String(error))),
        );
      }
    } catch (error) {
      report(error instanceof Error ? error : new Error(String(error)));
    }
  };

  return { request: onIncomingRequest, notification: onIncomingNotification };
}
