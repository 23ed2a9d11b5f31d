/**
 * The context object of one call: what handlers and middleware see as `ctx`. Its `AbortSignal`
 * is made only when someone reads `ctx.signal`, so calls that never look pay nothing for it.
 *
 * @module
 */
import type { JsonRpcId, Peer, ProgressReporter, TransportContext } from '@jsonrpc-kit/core';
import type { Session } from '@jsonrpc-kit/core/engine';
import type { MiddlewareContext } from './types.js';

/** Something that holds a signal, read lazily: a transport context or an incoming context. */
export interface SignalSource {
  readonly signal?: AbortSignal | undefined;
}

/** One call in flight. Internal: handlers see it through {@link MiddlewareContext}. */
export class Call implements MiddlewareContext {
  /** The params (middleware may replace them). */
  declare params: unknown;
  /** The request id; `undefined` for notifications. */
  declare readonly id: JsonRpcId | undefined;
  /** The method called. */
  declare readonly method: string;
  /** Facts about the transport. */
  declare readonly transport: TransportContext;
  /** The peer of a duplex connection. */
  declare readonly peer: Peer | undefined;
  /** When the caller stops waiting (`Date.now()` time), when the call carries a context. */
  declare deadline: number | undefined;
  /** The caller's metadata, when the call carries a context. */
  declare meta: Readonly<Record<string, unknown>> | undefined;
  /** Whether this is a notification. */
  declare readonly notification: boolean;
  /** Whether the call was aborted (cancelled, timed out, connection closed). */
  declare aborted: boolean;
  /** Why the call was aborted. */
  declare abortReason: unknown;
  /** Set by core's incoming runner while the answer waits: answers the call with the abort reason. */
  declare fail: ((reason: unknown) => void) | undefined;
  /** Whether the call has been answered (progress reports stop). */
  declare settled: boolean;
  /** Internal state below: plain fields assigned in the constructor, so a call costs no field initializer. */
  declare _session: Session | undefined;
  declare _progress: ProgressReporter<any> | undefined | null;
  declare _controller: AbortController | undefined;
  declare _state: Map<string | symbol, unknown> | undefined;
  declare _outer: SignalSource | undefined;
  /** Whether the call follows its outer signal (see {@link Call.link}). */
  declare _linked: boolean;

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
   */
  constructor(
    id: JsonRpcId | undefined,
    method: string,
    params: unknown,
    transport: TransportContext,
    peer: Peer | undefined,
    outer: SignalSource | undefined,
    session: Session | undefined,
  ) {
    this.params = params;
    this.id = id;
    this.method = method;
    this.transport = transport;
    this.peer = peer;
    this.deadline = undefined;
    this.meta = undefined;
    this.notification = id === undefined;
    this.aborted = false;
    this.abortReason = undefined;
    this.fail = undefined;
    this.settled = false;
    this._session = session;
    this._progress = null;
    this._controller = undefined;
    this._state = undefined;
    this._outer = outer;
    this._linked = false;
  }

  /** Aborted on cancellation, timeout, or the connection closing. */
  get signal(): AbortSignal {
    let controller = this._controller;
    if (controller === undefined) {
      controller = this._controller = new AbortController();
      if (this.aborted) controller.abort(this.abortReason);
      else this.link();
    }
    return controller.signal;
  }

  /** Reports progress to the caller; `undefined` when the caller sent no progress token. */
  get progress(): ProgressReporter<any> | undefined {
    if (this._progress === null) {
      const session = this._session;
      this._progress =
        session === undefined ? undefined : session.progressFor(this.params, () => !this.settled);
    }
    return this._progress;
  }

  /** Data shared by the middleware of this call. */
  get state(): Map<string | symbol, unknown> {
    if (this._state === undefined) this._state = new Map();
    return this._state;
  }

  /** Follows the outer signal, once someone cares (a signal was read, or an answer is pending). */
  link(): void {
    const outer = this._outer?.signal;
    if (outer === undefined || this._linked || this.aborted) return;
    if (outer.aborted) {
      this.abort(outer.reason);
      return;
    }
    let followers = following.get(outer);
    if (followers === undefined) {
      followers = createFollowers(outer);
      following.set(outer, followers);
    }
    followers.calls.add(this);
    this._linked = true;
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
    this._controller?.abort(reason);
    this.unlink();
    const fail = this.fail;
    if (fail !== undefined) {
      this.fail = undefined;
      fail(reason);
    }
  }

  /** Stops following the outer signal. */
  unlink(): void {
    if (!this._linked) return;
    this._linked = false;
    const outer = this._outer!.signal!;
    const followers = following.get(outer);
    if (followers === undefined) return;
    followers.calls.delete(this);
    if (followers.calls.size === 0) {
      outer.removeEventListener('abort', followers.listener);
      following.delete(outer);
    }
  }
}

/** The calls following one outer signal, and the one listener that aborts them all. */
interface Followers {
  readonly calls: Set<Call>;
  readonly listener: () => void;
}

/**
 * The calls following each outer signal: one abort listener per signal (an HTTP exchange, say),
 * however many calls of a batch follow it.
 */
const following = new WeakMap<AbortSignal, Followers>();

function createFollowers(outer: AbortSignal): Followers {
  const calls = new Set<Call>();
  const listener = (): void => {
    following.delete(outer);
    for (const call of calls) call.abort(outer.reason);
    calls.clear();
  };
  outer.addEventListener('abort', listener, { once: true });
  return { calls, listener };
}
