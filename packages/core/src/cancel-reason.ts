/**
 * The reason a cancel notice gives when a call gives up: the words of a timeout or of the abort
 * signal's reason, as the outgoing half of a session sends them.
 *
 * @module
 */
import type { GiveUpReason } from './pending.js';

/**
 * The reason a cancel notice gives: `"timeout"` for a deadline, the abort signal's reason when it
 * says one (a string, or an error's message), `"aborted"` otherwise (a bare `abort()`).
 *
 * @param reason - timeout or abort
 * @param cause - the signal's reason, when aborted
 * @returns the text
 */
export function cancelReasonText(reason: GiveUpReason, cause: unknown): string {
  if (reason === 'timeout') return 'timeout';
  if (typeof cause === 'string' && cause.length > 0) return cause;
  if (typeof cause === 'object' && cause !== null) {
    const { name, message } = cause as { name?: unknown; message?: unknown };
    if (name === 'TimeoutError') return 'timeout';
    // A bare `controller.abort()` gives a DOMException "AbortError": no reason of its own.
    if (name !== 'AbortError' && typeof message === 'string' && message.length > 0) {
      return message;
    }
  }
  return 'aborted';
}
