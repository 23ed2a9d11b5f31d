/**
 * `await using` support without depending on the runtime's lib types.
 *
 * @module
 */

/**
 * Adds `Symbol.asyncDispose` (where the runtime has it) so `await using` closes the resource.
 *
 * @param target - the object to extend
 * @param close - what disposal does
 * @returns the same object
 */
export function withAsyncDispose<T extends object>(target: T, close: () => Promise<void>): T {
  const symbol = (Symbol as { asyncDispose?: symbol }).asyncDispose;
  if (typeof symbol === 'symbol') {
    Object.defineProperty(target, symbol, { value: close, configurable: true });
  }
  return target;
}
