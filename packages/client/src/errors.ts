/**
 * The client's own local error: a result that the contract's schema rejects.
 *
 * @module
 */
import { type JsonRpcErrorOptions, ProtocolError, type WireIssue } from '@jsonrpc-kit/core';

/**
 * A contract proxy received a result that does not match the method's result schema. A
 * {@link ProtocolError} (`code` `"PROTOCOL_ERROR"`): the peer broke the contract, the call itself
 * was answered.
 *
 * @example
 * ```ts
 * try {
 *   await calc.add(1, 2);
 * } catch (error) {
 *   if (error instanceof ResultValidationError) console.log(error.issues);
 * }
 * ```
 */
export class ResultValidationError extends ProtocolError {
  /** What the schema found wrong, as `{ path, message }`. */
  readonly issues: readonly WireIssue[];

  /**
   * @param issues - the schema's issues, in wire form
   * @param received - the result that was rejected
   * @param options - the call it belongs to
   */
  constructor(issues: readonly WireIssue[], received: unknown, options?: JsonRpcErrorOptions) {
    const first = issues[0];
    const detail =
      first === undefined ? '' : `: ${first.path === '' ? '' : first.path + ': '}${first.message}`;
    super(`Result does not match the contract${detail}`, received, options);
    this.name = 'ResultValidationError';
    this.issues = issues;
  }
}
