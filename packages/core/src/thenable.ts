/**
 * Telling promises from plain values, for the synchronous fast paths of the endpoints: a handler
 * or schema that answers synchronously is never wrapped in a promise.
 *
 * @module
 */

/**
 * Whether `value` is a promise or another thenable.
 *
 * @param value - anything
 * @returns `true` when `value` has a `then` method
 * @example
 * ```ts
 * const result = handler(params);
 * if (isPromiseLike(result)) result.then(send);
 * else send(result);
 * ```
 */
export function isPromiseLike(value: unknown): value is PromiseLike<unknown> {
  return (
    value !== null &&
    (typeof value === 'object' || typeof value === 'function') &&
    typeof (value as { then?: unknown }).then === 'function'
  );
}
