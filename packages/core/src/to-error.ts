/**
 * One way to turn anything thrown into an `Error`.
 *
 * @module
 */

/**
 * Returns `value` when it is an `Error`, else an `Error` whose message is `String(value)` and
 * whose `cause` is `value`.
 *
 * @param value - what was thrown or rejected with
 * @returns an `Error`
 * @example
 * ```ts
 * toError(new TypeError('x')); // the same TypeError
 * toError('boom').message; // 'boom'
 * ```
 */
export function toError(value: unknown): Error {
  return value instanceof Error ? value : new Error(String(value), { cause: value });
}
