/**
 * One call the other side made to this client (`onRequest`, `onNotification`), as the incoming
 * runner runs it: the handler's `ctx`, and its entry in the session's incoming-call table. Its
 * `signal` is made on first read: a handler that never reads it costs no `AbortController`.
 *
 * @module
 */
import type {
  IncomingContext,
  JsonRpcId,
  JsonRpcNotification,
  JsonRpcRequest,
  Peer,
  ProgressReporter,
  TransportContext,
} from '@jsonrpc-kit/core';
import type { RunnerCall, Session } from '@jsonrpc-kit/core/engine';

const NO_TRANSPORT_FACTS: TransportContext = Object.freeze({});

/** One incoming request or notification served by the client's handlers. */
export class ServedCall implements IncomingContext, RunnerCall {
  /** The request id; `undefined` for a notification. */
  readonly id: JsonRpcId | undefined;
  /** The message as received. */
  readonly message: JsonRpcRequest | JsonRpcNotification;
  /** The side handlers call back (the client). */
  readonly peer: Peer;
  /** No facts: a client's transport is its own. */
  readonly transport: TransportContext = NO_TRANSPORT_FACTS;
  /** Whether the call was aborted before it was answered. */
  aborted = false;
  /** Why it was aborted. */
  abortReason: unknown = undefined;
  /** Set by the runner while the answer waits. */
  fail: ((reason: unknown) => void) | undefined = undefined;
  /** Whether the call has been answered. */
  settled = false;
  #session: Session;
  #controller: AbortController | undefined = undefined;
  #progress: ProgressReporter<any> | undefined | null = null;

  /**
   * @param message - the request or notification
   * @param peer - the client
   * @param session - the client's session
   */
  constructor(message: JsonRpcRequest | JsonRpcNotification, peer: Peer, session: Session) {
    this.id = 'id' in message ? message.id : undefined;
    this.message = message;
    this.peer = peer;
    this.#session = session;
  }

  /** The method called. */
  get method(): string {
    return this.message.method;
  }

  /** Aborted when the other side cancels this request, or the session closes. */
  get signal(): AbortSignal {
    const controller = this.#controller;
    if (controller !== undefined) return controller.signal;
    // Answered already: nothing can cancel it any more, only the session can close.
    if (this.settled && !this.aborted) return this.#session.signal;
    const made = (this.#controller = new AbortController());
    if (this.aborted) made.abort(this.abortReason);
    else if (this.#session.signal.aborted) made.abort(this.#session.signal.reason);
    return made.signal;
  }

  /** Reports progress to the caller; `undefined` when the caller sent no progress token. */
  get progress(): ProgressReporter<any> | undefined {
    if (this.#progress === null) {
      this.#progress =
        this.id === undefined
          ? undefined
          : this.#session.progressFor(this.message.params, () => !this.settled);
    }
    return this.#progress;
  }

  /**
   * Stops the call: fires its signal and, while its answer waits, answers it with `reason`.
   *
   * @param reason - a cancellation error, or the close reason
   */
  abort(reason: unknown): void {
    if (this.aborted || this.settled) return;
    this.aborted = true;
    this.abortReason = reason;
    this.#controller?.abort(reason);
    const fail = this.fail;
    if (fail !== undefined) {
      this.fail = undefined;
      fail(reason);
    }
  }
}
