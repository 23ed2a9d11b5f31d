/**
 * Shared helpers of the middleware: the wire code a failure will be answered with, and a clock.
 *
 * @module
 */
import { ErrorCode, isJsonRpcError } from '@jsonrpc-kit/core';

/**
 * The error code a failure will be answered with: a `JsonRpcError`'s own code, -32603 for
 * anything else.
 *
 * @param error - what the call threw
 * @returns the code
 */
export function errorCodeOf(error: unknown): number {
  return isJsonRpcError(error) ? error.code : ErrorCode.InternalError;
}

/**
 * The error message a failure will be answered with (a non-`JsonRpcError` is "Internal error":
 * its own message never leaves the server).
 *
 * @param error - what the call threw
 * @returns the message
 */
export function errorMessageOf(error: unknown): string {
  return isJsonRpcError(error) ? error.message : 'Internal error';
}

/**
 * Milliseconds from a monotonic clock.
 *
 * @returns the time
 */
export function monotonicNow(): number {
  return performance.now();
}
