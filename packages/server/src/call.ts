/**
 * The context object of one call: what handlers and middleware see as `ctx`. Its `AbortSignal`
 * is made only when someone reads `ctx.signal`, so calls that never look pay nothing for it.
 *
 * @module
 */
import type {
  JsonRpcId,
  Peer,
  ProgressReporter,
  Session,
  TransportContext,
} from '@jsonrpc-kit/core';
import type { MiddlewareContext } from './types.js';

/** Something that holds a signal, read lazily: a transport context or an incoming context. */
export interface SignalSource {
  readonly signal?: AbortSignal | undefined;
}

/** One call in flight. Internal: handlers see it through {@link MiddlewareContext}. */
export class Call implements MiddlewareContext {
  /** The params (middleware may replace them). */
  params: unknown;
  /** The request id; `undefined` for notifications. */
  readonly id: JsonRpcId | undefined;
  /** The method called. */
  readonly method: string;
  /** Facts about the transport. */
  readonly transport: TransportContext;
  /** The peer of a duplex connection. */
  readonly peer: Peer | undefined;
  /** Whether this is a notification. */
  readonly notification: boolean;
  /** Whether the call was aborted (cancelled, timed out, connection closed). */
  aborted: boolean = false;
  /** Why the call was aborted. */
  abortReason: unknown = undefined;
  /** Set while an early answer is possible: rejects the answer with the abort reason. */
  fail: ((reason: unknown) => void) | undefined = undefined;
  /** Whether the call has been answered (progress reports stop). */
  settled: boolean = false;
  #session: Session | undefined;
  #progress: ProgressReporter<any> | undefined | null = null;
  #controller: AbortController | undefined = undefined;
  #state: Map<string | symbol, unknown> | undefined = undefined;
  #outer: SignalSource | undefined;
  #onOuterAbort: (() => void) | undefined = undefined;

  /**
   * @param id - the request id, `undefined` for a notification
   * @param method - the method
   * @param params - the params as received
   * @param transport - transport facts
   * @param peer - the duplex peer
   * @param outer - holds a signal that aborts this call too (the exchange's or the caller's),
   *   read only when the call needs it (HTTP contexts make theirs on first read)
   * @param session - the connection's session (for progress), `undefined` for notifications
   *   and stateless exchanges
   * @param progress - a progress reporter given from outside (a client serving calls)
   */
  constructor(
    id: JsonRpcId | undefined,
    method: string,
    params: unknown,
    transport: TransportContext,
    peer: Peer | undefined,
    outer: SignalSource | undefined,
    session: Session | undefined,
    progress?: ProgressReporter<any>,
  ) {
    this.#session = session;
    if (progress !== undefined) this.#progress = progress;
    this.id = id;
    this.method = method;
    this.params = params;
    this.transport = transport;
    this.peer = peer;
    this.notification = id === undefined;
    this.#outer = outer;
  }

  /** Aborted on cancellation, timeout, or the connection closing. */
  get signal(): AbortSignal {
    let controller = this.#controller;
    if (controller === undefined) {
      controller = this.#controller = new AbortController();
      if (this.aborted) controller.abort(this.abortReason);
      else this.link();
    }
    return controller.signal;
  }

  /** Reports progress to the caller; `undefined` when the caller sent no progress token. */
  get progress(): ProgressReporter<any> | undefined {
    if (this.#progress === null) {
      const session = this.#session;
      this.#progress =
        session === undefined ? undefined : session.progressFor(this.params, () => !this.settled);
    }
    return this.#progress;
  }

  /** Data shared by the middleware of this call. */
  get state(): Map<string | symbol, unknown> {
    if (this.#state === undefined) this.#state = new Map();
    return this.#state;
  }

  /** Follows the outer signal, once someone cares (a signal was read, or an answer is pending). */
  link(): void {
    const outer = this.#outer?.signal;
    if (outer === undefined || this.#onOuterAbort !== undefined || this.aborted) return;
    if (outer.aborted) {
      this.abort(outer.reason);
      return;
    }
    this.#onOuterAbort = () => this.abort(outer.reason);
    outer.addEventListener('abort', this.#onOuterAbort, { once: true });
  }

  /**
   * Aborts the call: fires `ctx.signal` and answers early when an answer is pending.
   *
   * @param reason - why
   */
  abort(reason: unknown): void {
    if (this.aborted) return;
    this.aborted = true;
    this.abortReason = reason;
    this.#controller?.abort(reason);
    const fail = this.fail;
    if (fail !== undefined) {
      this.fail = undefined;
      fail(reason);
    }
  }

  /** Stops following the outer signal. */
  unlink(): void {
    if (this.#onOuterAbort !== undefined) {
      this.#outer?.signal?.removeEventListener('abort', this.#onOuterAbort);
      this.#onOuterAbort = undefined;
    }
  }
}
