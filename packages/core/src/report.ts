/**
 * What the endpoints tell their `onError` hook: each event has a kind, so routine traffic (an
 * unknown `$/setTrace` notification, an answer to a peer that just left) can be told apart from
 * real failures, and a level, so the routine is quiet by default.
 *
 * @module
 */
import type { JsonRpcId } from './messages.js';

/**
 * How much an `onError` event matters: `"debug"` for routine traffic, `"warn"` for a peer that
 * breaks the protocol or a transport hiccup, `"error"` for failures of the application's own code.
 */
export type ErrorLevel = 'debug' | 'warn' | 'error';

/**
 * What an `onError` event is about.
 *
 * | kind | level | when |
 * | --- | --- | --- |
 * | `handler-failed` | error | a handler threw something that is not a `JsonRpcError` (answered -32603) |
 * | `unserializable-result` | error | a result JSON cannot hold (answered -32603) |
 * | `notification-failed` | warn or error | a notification's handler failed (warn when it threw a `JsonRpcError`, such as -32602 from its schema) |
 * | `unknown-notification` | debug | a notification for a method nobody registered (LSP's `$/setTrace`, say) |
 * | `invalid-message` | warn | a message that cannot be answered: an invalid notification, text that is not JSON on a client, a malformed answer |
 * | `unexpected-response` | warn | an answer for no call that waits |
 * | `message-too-large` | warn | a message over the size limit, refused unparsed (a request is answered -32004 with its own id) |
 * | `caller-gone` | debug | the caller went away (its connection closed, an HTTP client disconnected or timed out) before its call was answered; the handler's `ctx.signal` was aborted and nothing is sent |
 * | `send-failed` | debug or warn | an answer or a cancel notification could not be sent (debug when the peer had gone) |
 * | `transport-error` | warn or error | the transport's own non-fatal errors (warn); it failed to start (error) |
 */
export type ErrorKind =
  | 'handler-failed'
  | 'unserializable-result'
  | 'notification-failed'
  | 'unknown-notification'
  | 'invalid-message'
  | 'unexpected-response'
  | 'message-too-large'
  | 'caller-gone'
  | 'send-failed'
  | 'transport-error';

/** What an `onError` hook is told about an event besides the error itself. */
export interface ErrorInfo {
  /** What happened. */
  readonly kind: ErrorKind;
  /** How much it matters. */
  readonly level: ErrorLevel;
  /** The method of the call, when known. */
  readonly method?: string;
  /** The id of the call (absent for notifications and for unreadable messages). */
  readonly id?: JsonRpcId;
}

/**
 * The least level `onError` hears by default: routine `debug` events (unknown notifications, an
 * answer to a peer that left) are dropped unless `onErrorLevel` is `"debug"`.
 * @default 'warn'
 */
export const DEFAULT_ON_ERROR_LEVEL: ErrorLevel = 'warn';

const RANK: Readonly<Record<ErrorLevel, number>> = { debug: 0, warn: 1, error: 2 };

/**
 * Wraps an `onError` hook: events below `least` are dropped, and the hook's own throws are
 * swallowed (a logging hook must never break an endpoint).
 *
 * @param hook - the user's hook, or `undefined`
 * @param least - the least level passed on
 * @returns a function to report events with
 * @throws RangeError when `least` is not `"debug"`, `"warn"` or `"error"`
 * @example
 * ```ts
 * const report = createReporter(options.onError, options.onErrorLevel);
 * report(error, { kind: 'handler-failed', level: 'error', method: 'add', id: 1 });
 * ```
 */
export function createReporter<E, I extends ErrorInfo>(
  hook: ((error: E, info: I) => void) | undefined,
  least: ErrorLevel = DEFAULT_ON_ERROR_LEVEL,
): (error: E, info: I) => void {
  const floor = Object.hasOwn(RANK, least) ? RANK[least] : undefined;
  if (floor === undefined) {
    throw new RangeError(`onErrorLevel must be "debug", "warn" or "error", got ${String(least)}`);
  }
  return (error, info) => {
    if (hook === undefined || RANK[info.level] < floor) return;
    try {
      hook(error, info);
    } catch {
      // The hook's own failures are not ours to report.
    }
  };
}
