/**
 * What the two error families share: the call an error belongs to ({@link CallInfo}), the options
 * every error constructor accepts ({@link JsonRpcErrorOptions}), and the `instanceof` check that
 * also recognizes errors from another copy of this package.
 *
 * @module
 */
import type { JsonRpcId } from './messages.js';

/** Which call an error belongs to, when it belongs to one. */
export interface CallInfo {
  /** The method of the failed call. */
  readonly method?: string | undefined;
  /** The id of the failed call (absent for notifications). */
  readonly id?: JsonRpcId | undefined;
}

/** Options accepted by every error constructor of the kit. */
export interface JsonRpcErrorOptions extends CallInfo {
  /** The underlying cause. */
  readonly cause?: unknown;
}
/**
 * The `Symbol.hasInstance` check of a branded error class: a real instance of `ctor`, or a branded
 * error from another copy of this package that `ctor` would match there.
 *
 * @param ctor - the class being asked (`this` in its `Symbol.hasInstance`)
 * @param base - the family's base class, which matches any error carrying `brand`
 * @param brand - the family's `Symbol.for` brand
 * @param instance - the value on the left of `instanceof`
 * @returns whether `instance` counts as an instance of `ctor`
 */
export function brandedInstanceOf(
  ctor: Function & { readonly code?: unknown },
  base: Function,
  brand: symbol,
  instance: unknown,
): boolean {
  if (typeof instance !== 'object' || instance === null) return false;
  if (Function.prototype[Symbol.hasInstance].call(ctor, instance)) return true;
  if ((instance as Record<symbol, unknown>)[brand] !== true) return false;
  // A copy from another instance of this package: the base matches any branded error, a
  // subclass matches by its code.
  return (
    ctor === base ||
    (ctor.code !== undefined && (instance as { code?: unknown }).code === ctor.code)
  );
}
