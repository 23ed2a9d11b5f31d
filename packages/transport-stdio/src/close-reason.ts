import { ConnectionClosedError } from '@jsonrpc-kit/core';
import { toError } from '@jsonrpc-kit/core/engine';

/**
 * The error `onClose` receives for `close(reason)`: none without a reason, the reason itself when
 * it is an Error, else a `ConnectionClosedError` with the reason as its message.
 *
 * @param reason - what was passed to `close()`
 * @returns the error for `onClose`, or undefined
 * @example
 * ```ts
 * handler.onClose(closeReasonError('shutting down'));
 * ```
 */
export function closeReasonError(reason: unknown): Error | undefined {
  if (reason === undefined) return undefined;
  return toError(reason, (message) => new ConnectionClosedError(message));
}
