/**
 * Turns a transport's send failure into an error that names the failed call.
 *
 * @module
 */
import { type CallInfo, ConnectionClosedError, LocalError, TransportError } from './errors.js';

/**
 * The transport's send failure, as an error naming one call.
 *
 * @param error - what the transport's `send()` failed with
 * @param call - the call whose message was being sent
 * @returns a `TransportError` or `ConnectionClosedError` naming the call; another `LocalError`
 *   as it is
 * @example
 * ```ts
 * sendError(new Error('EPIPE'), { method: 'add', id: 1 }).message; // "Send failed: EPIPE …"
 * ```
 */
export function sendError(error: unknown, call: CallInfo): LocalError {
  if (error instanceof TransportError) {
    return new TransportError(error.message, {
      status: error.status,
      body: error.body,
      method: call.method,
      id: call.id,
      cause: error,
    });
  }
  if (error instanceof ConnectionClosedError) {
    return new ConnectionClosedError(undefined, { method: call.method, id: call.id, cause: error });
  }
  if (error instanceof LocalError) return error;
  const message = error instanceof Error ? error.message : String(error);
  return new TransportError(`Send failed: ${message}`, {
    method: call.method,
    id: call.id,
    cause: error,
  });
}
