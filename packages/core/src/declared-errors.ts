/**
 * The errors a method declares in its `docs.errors`: their codes as a type
 * ({@link DeclaredErrorCode}) and the check that narrows a failure to them
 * ({@link isDeclaredError}).
 *
 * @module
 */
import type { ContractEntry } from './contract-types.js';
import { JsonRpcError } from './errors.js';

/** The codes of the errors a method declares in its `docs` (`never` when it declares none). */
export type DeclaredErrorCode<E extends ContractEntry> = E extends {
  /** A method: only methods declare errors. */
  readonly kind: 'method';
}
  ? NonNullable<NonNullable<E['docs']>['errors']>[number]['code']
  : never;

/** A {@link JsonRpcError} whose code is one a method declares (or the one given). */
export type DeclaredError<Code extends number = number> = JsonRpcError & {
  /** One of the method's declared codes. */
  readonly code: Code;
};

/**
 * Whether an error is a {@link JsonRpcError} whose code the method declares in its `docs.errors`
 * (or is `code`, one of them). The check is made at run time against the declared codes; the
 * type narrows `error.code` to them, so a `switch` on it sees only the declared errors.
 *
 * @param entry - the method's definition (`contract.withdraw`)
 * @param error - what the call rejected with
 * @param code - one declared code, to test for that error only
 * @returns whether the error is one the method declares
 * @example
 * ```ts
 * try {
 *   await api.withdraw(100);
 * } catch (error) {
 *   if (isDeclaredError(contract.withdraw, error)) error.code; // 4001
 *   else throw error;
 * }
 * ```
 */
export function isDeclaredError<
  E extends ContractEntry,
  const Code extends DeclaredErrorCode<E> = DeclaredErrorCode<E>,
>(entry: E, error: unknown, code?: Code): error is DeclaredError<Code> {
  if (!(error instanceof JsonRpcError)) return false;
  if (code !== undefined && error.code !== code) return false;
  const declared = entry.kind === 'method' ? entry.docs?.errors : undefined;
  return declared?.some((e) => e.code === error.code) ?? false;
}
