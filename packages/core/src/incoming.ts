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
  // Not a `Set`: see `TurnoverMap` (a `Set` slowed a server of async handlers by a fifth after
  // a full GC).
  const calls = new TurnoverMap<C, true>();
  /** Requests by id: built on the first cancellation, kept from then on. */
  let byId: Map<JsonRpcId, C> | undefined;
  let silent: WeakSet<object> | undefined;

  const untrack = (call: C): void => {
    if (!calls.delete(call)) return;
    if (byId !== undefined && call.id !== undefined && byId.get(call.id) === call) {
      byId.delete(call.id);
    }
  };

  return {
    get size() {
      return calls.size;
    },
    track(call) {
      calls.set(call, true);
      // A peer that reuses an id while the first runs breaks the spec: the latest one wins.
      if (byId !== undefined && call.id !== undefined) byId.set(call.id, call);
    },
    untrack,
    cancel(id, reason, answer) {
      if (calls.size === 0) return undefined;
      if (byId === undefined) {
        byId = new Map();
        for (const call of calls.keys()) if (call.id !== undefined) byId.set(call.id, call);
      }
      const call = byId.get(id);
      if (call === undefined) return undefined;
      untrack(call);
      if (!answer && typeof reason === 'object' && reason !== null) {
        (silent ??= new WeakSet()).add(reason);
      }
      call.abort(reason);
      return call;
    },
    unanswered(reason) {
      return silent !== undefined && typeof reason === 'object' && reason !== null
        ? silent.has(reason)
        : false;
    },
    closeAll(reason) {
      if (calls.size === 0) return;
      const all = [...calls.keys()];
      calls.clear();
      byId?.clear();
      for (const call of all) call.abort(reason);
    },
  };
}
