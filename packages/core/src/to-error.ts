/**
 * One way to turn anything thrown into an `Error`.
 *
 * @module
 */

/**
 * Returns `value` when it is an `Error`, else an `Error` whose message is `String(value)` and
 * whose `cause` is `value` (built by `wrap` when given, for a more specific class).
 *
 * @param value - what was thrown or rejected with
 * @param wrap - builds the error for a value that is not one
 * @default wrap - a plain `Error` with `value` as its `cause`
 * @returns an `Error`
 * @example
 * ```ts
 * toError(new TypeError('x')); // the same TypeError
 * toError('boom').message; // 'boom'
 * toError('gone', (message) => new ConnectionClosedError(message)).code; // 'CONNECTION_CLOSED'
 * ```
 */
export function toError(value: unknown, wrap?: (message: string) => Error): Error {
  if (value instanceof Error) return value;
  return wrap === undefined ? new Error(String(value), { cause: value }) : wrap(String(value));
}
