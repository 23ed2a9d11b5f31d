/// <reference lib="esnext.disposable" preserve="true" />
/**
 * `await using` support: the symbol the kit's resources are disposed through.
 *
 * @module
 */

/**
 * `Symbol.asyncDispose`, or `Symbol.for('Symbol.asyncDispose')` on a runtime that lacks it (some
 * browsers). The kit's servers, connections and clients have a method under this key that closes
 * them, so `await using server = createServer()` closes the server at the end of the block.
 * Node 20.19 and later have `Symbol.asyncDispose`.
 *
 * @example
 * ```ts
 * const resource = { [asyncDisposeSymbol]: async () => console.log('closed') };
 * await resource[asyncDisposeSymbol]();
 * ```
 */
export const asyncDisposeSymbol: typeof Symbol.asyncDispose = ((Symbol as { asyncDispose?: symbol })
  .asyncDispose ?? Symbol.for('Symbol.asyncDispose')) as typeof Symbol.asyncDispose;
