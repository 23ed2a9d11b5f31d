/**
 * The incoming-call table: the calls the other side made that are still running here, so a
 * cancel notification can reach one by id and closing can abort them all. The mirror of
 * `pending.ts`, which holds the calls this side made.
 *
 * @module
 */
import type { JsonRpcId } from './messages.js';
import { TurnoverMap } from './turnover-map.js';

/** A call that runs here: what the table needs to stop it. */
export interface IncomingCall {
  /** The request id; `undefined` for a notification (which nothing can cancel by id). */
  readonly id: JsonRpcId | undefined;
  /**
   * Stops the call: aborts its `ctx.signal` and, when its owner arranged it, answers it early.
   *
   * @param reason - why (a cancellation error, or the close reason)
   */
  abort(reason: unknown): void;
}

/** The table. See {@link createIncomingCalls}. */
export interface IncomingCalls<C extends IncomingCall = IncomingCall> {
  /** How many calls run. */
  readonly size: number;
  /**
   * Starts tracking a call whose handler has not settled yet. O(1).
   *
   * @param call - the call
   */
  track(call: C): void;
  /**
   * Stops tracking a call (its handler settled). O(1); a call not tracked is ignored.
   *
   * @param call - the call
   */
  untrack(call: C): void;
  /**
   * The other side cancelled a request: untracks it and aborts it with `reason`. The first
   * cancellation builds an index by id (O(n) once); later ones are O(1).
   *
   * @param id - the id named by the cancel notification
   * @param reason - the abort reason
   * @param answer - `false` when a cancelled request gets no answer (MCP): see {@link IncomingCalls.unanswered}
   * @returns the call, or `undefined` when none with that id runs (unknown, or answered already)
   */
  cancel(id: JsonRpcId, reason: unknown, answer: boolean): C | undefined;
  /**
   * Whether an error is the reason of a cancellation that must not be answered.
   *
   * @param reason - what the call failed with
   * @returns `true` when the call's answer must be dropped
   */
  unanswered(reason: unknown): boolean;
  /**
   * Aborts every call (the connection closed) and empties the table.
   *
   * @param reason - the close reason
   */
  closeAll(reason: unknown): void;
}

/**
 * Creates an empty incoming-call table.
 *
 * @returns the table
 * @example
 * ```ts
 * const running = createIncomingCalls();
 * const call = { id: 1, abort: (reason: unknown) => console.log('stopped', reason) };
 * running.track(call);
 * running.cancel(1, new Error('cancelled'), true); // logs "stopped"
 * running.size; // 0
 * ```
 */
export function createIncomingCalls<C extends IncomingCall = IncomingCall>(): IncomingCalls<C> {
  return new IncomingTable<C>();
}

/**
 * The table behind {@link createIncomingCalls}: a class, so that its behaviour lives once on the
 * prototype (a connection idle between calls holds the table's three fields and an empty map, not
 * a closure per method), and the index by id is dropped whenever the table empties.
 */
class IncomingTable<C extends IncomingCall> implements IncomingCalls<C> {
  // Not a `Set`: see `TurnoverMap` (a `Set` slowed a server of async handlers by a fifth after
  // a full GC). Made by the first `track`, kept (a map per call would cost more than it saves).
  #calls: TurnoverMap<C, true> | undefined = undefined;
  /** Requests by id: built on the first cancellation while calls run, dropped with `#calls`. */
  #byId: Map<JsonRpcId, C> | undefined = undefined;
  /** The reasons of cancellations that must not be answered (kept: answers are made after). */
  #silent: WeakSet<object> | undefined = undefined;

  get size(): number {
    return this.#calls?.size ?? 0;
  }

  track(call: C): void {
    (this.#calls ??= new TurnoverMap()).set(call, true);
    // A peer that reuses an id while the first runs breaks the spec: the latest one wins.
    if (this.#byId !== undefined && call.id !== undefined) this.#byId.set(call.id, call);
  }

  untrack(call: C): void {
    const calls = this.#calls;
    if (calls === undefined || !calls.delete(call)) return;
    if (calls.size === 0) {
      this.#byId = undefined;
      return;
    }
    const byId = this.#byId;
    if (byId !== undefined && call.id !== undefined && byId.get(call.id) === call) {
      byId.delete(call.id);
    }
  }

  cancel(id: JsonRpcId, reason: unknown, answer: boolean): C | undefined {
    const calls = this.#calls;
    if (calls === undefined || calls.size === 0) return undefined;
    let byId = this.#byId;
    if (byId === undefined) {
      byId = this.#byId = new Map();
      for (const call of calls.keys()) if (call.id !== undefined) byId.set(call.id, call);
    }
    const call = byId.get(id);
    if (call === undefined) return undefined;
    this.untrack(call);
    if (!answer && typeof reason === 'object' && reason !== null) {
      (this.#silent ??= new WeakSet()).add(reason);
    }
    call.abort(reason);
    return call;
  }

  unanswered(reason: unknown): boolean {
    const silent = this.#silent;
    return silent !== undefined && typeof reason === 'object' && reason !== null
      ? silent.has(reason)
      : false;
  }

  closeAll(reason: unknown): void {
    const calls = this.#calls;
    if (calls === undefined) return;
    if (calls.size === 0) return;
    const all = [...calls.keys()];
    calls.clear();
    this.#byId = undefined;
    for (const call of all) call.abort(reason);
  }
}
