/**
 * Helpers for middleware: the wire code and message a failure will be answered with, and a clock.
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
 * @example
 * ```ts
 * server.use(async (ctx, next) => {
 *   try {
 *     return await next();
 *   } catch (error) {
 *     console.log(ctx.method, errorCodeOf(error)); // -32603 for a plain Error
 *     throw error;
 *   }
 * });
 * ```
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
 * @example
 * ```ts
 * errorMessageOf(new Error('secret detail')); // 'Internal error'
 * errorMessageOf(new InvalidParamsError('bad id')); // 'bad id'
 * ```
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
