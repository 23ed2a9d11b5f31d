/**
 * Correlation of outgoing requests with their answers: the pending map shared by the client and
 * by the server's duplex connections. Every entry is removed on answer, timeout, abort and close.
 *
 * @module
 */
import { AbortError, fromErrorObject, TimeoutError } from './errors.js';
import type { JsonRpcId, JsonRpcResponse } from './messages.js';
import { TurnoverMap } from './turnover-map.js';

/** Why a pending call stopped waiting on its own. */
export type GiveUpReason = 'timeout' | 'abort';

/** Options for {@link PendingCalls.add}. */
export interface PendingCallOptions {
  /** Milliseconds to wait for the answer; `0` or `undefined` waits forever. */
  readonly timeout?: number | undefined;
  /** Aborts the wait. */
  readonly signal?: AbortSignal | undefined;
  /**
   * Without a `timeout`: wait at most the table's `fallbackTimeout` (see
   * {@link PendingCallsOptions}), a safety net checked coarsely.
   *
   * @default false
   */
  readonly fallback?: boolean | undefined;
  /**
   * Called when the call gives up (timeout or abort), to send a cancel notification; `cause` is
   * the signal's reason when it was aborted.
   */
  readonly onGiveUp?:
    | ((reason: GiveUpReason, id: JsonRpcId, method: string, cause?: unknown) => void)
    | undefined;
}

/** Options for {@link createPendingCalls}. */
export interface PendingCallsOptions {
  /**
   * Milliseconds after which a call added with `fallback: true` fails with a
   * {@link TimeoutError}: a safety net, not a deadline. It is checked by a sweep every tenth of
   * it, so such a call fails between 1 and 1.1 times this after it started; a call costs no
   * timer or clock read, and the sweep does not hold the process open. `0`, `undefined` or more
   * than `setTimeout` holds (about 24.8 days): none.
   */
  readonly fallbackTimeout?: number | undefined;
}

/** A call waiting for its answer. */
export interface PendingCall {
  /** The request's id. */
  readonly id: JsonRpcId;
  /** The method called. */
  readonly method: string;
}

/** The pending map. See {@link createPendingCalls}. */
export interface PendingCalls {
  /** How many calls are waiting. */
  readonly size: number;
  /**
   * Registers a call and returns the promise of its result.
   *
   * @param id - the request id (unique among pending calls)
   * @param method - the method, for error messages
   * @param options - timeout, signal, give-up hook
   * @returns the result, or a rejection with the wire error, {@link TimeoutError} or {@link AbortError}
   * @throws Error synchronously when `id` is already pending
   */
  add(id: JsonRpcId, method: string, options?: PendingCallOptions): Promise<unknown>;
  /**
   * Settles the call a response answers.
   *
   * @param response - a valid response
   * @returns `false` when no call with that id is pending (a late or unknown answer)
   */
  settle(response: JsonRpcResponse): boolean;
  /**
   * Rejects one call.
   *
   * @param id - its id
   * @param error - the rejection
   * @returns `false` when no call with that id is pending
   */
  reject(id: JsonRpcId, error: Error): boolean;
  /**
   * Rejects every pending call, with an error made for each.
   *
   * @param makeError - builds the error for one call
   */
  rejectAll(makeError: (call: PendingCall) => Error): void;
  /**
   * Restarts a call's timeout from now (a sign of life, such as a progress notification).
   *
   * @param id - its id
   * @returns `false` when no call with that id is pending
   */
  refresh(id: JsonRpcId): boolean;
  /** Whether a call with this id is pending. */
  has(id: JsonRpcId): boolean;
  /**
   * The pending call with this id, if there is one: one lookup, however many wait.
   *
   * @param id - its id
   * @returns the call, or `undefined`
   */
  get(id: JsonRpcId): PendingCall | undefined;
  /** The pending calls, oldest first. */
  calls(): IterableIterator<PendingCall>;
}

interface Entry extends PendingCall {
  resolve(value: unknown): void;
  reject(error: Error): void;
  timer: ReturnType<typeof setTimeout> | undefined;
  /** Milliseconds of the call's timeout; `0` for none. */
  timeout: number;
  /** Under the safety net: the sweeps done when the call started; `-1`: not under it. */
  net: number;
  signal: AbortSignal | undefined;
  onGiveUp: PendingCallOptions['onGiveUp'];
}

/** A Node or Bun timer: it can stop holding the process open. */
interface Holdable {
  unref(): unknown;
}

/** Sweeps of the safety net per `fallbackTimeout`. */
const SWEEPS = 10;

/** The longest delay a timer holds. */
const MAX_DELAY = 2_147_483_647;

/**
 * The resolvers of the promise being made: one executor shared by every call, so that a call
 * costs no closure of its own (`new Promise` runs its executor synchronously).
 */
let nextResolve: ((value: unknown) => void) | undefined;
let nextReject: ((error: Error) => void) | undefined;
const takeResolvers = (resolve: (value: unknown) => void, reject: (error: Error) => void): void => {
  nextResolve = resolve;
  nextReject = reject;
};

/** The calls waiting on one signal, with the one listener they share. */
interface SignalWatch {
  readonly entries: Set<Entry>;
  readonly listener: () => void;
}

/**
 * Creates an empty pending map.
 *
 * @param options - the safety net for calls without a timeout of their own
 * @returns the pending map
 * @example
 * ```ts
 * const pending = createPendingCalls();
 * const result = pending.add(1, 'sum', { timeout: 1000 });
 * pending.settle({ jsonrpc: '2.0', id: 1, result: 3 });
 * await result; // 3
 * ```
 */
export function createPendingCalls(options?: PendingCallsOptions): PendingCalls {
  // Not a `Map`: see `TurnoverMap` (a `Map` slowed a client down by a quarter after a full GC).
  const entries = new TurnoverMap<JsonRpcId, Entry>();
  const fallbackTimeout = options?.fallbackTimeout ?? 0;
  const netting = fallbackTimeout > 0 && fallbackTimeout <= MAX_DELAY;
  // One abort listener per signal, however many calls share it: removing listeners one by one
  // from a signal with many of them is quadratic.
  const watches = new WeakMap<AbortSignal, SignalWatch>();

  const watch = (signal: AbortSignal, entry: Entry): void => {
    let watched = watches.get(signal);
    if (watched === undefined) {
      const set = new Set<Entry>();
      watched = {
        entries: set,
        listener: () => {
          watches.delete(signal);
          for (const waiting of [...set]) giveUp(waiting, 'abort');
        },
      };
      watches.set(signal, watched);
      signal.addEventListener('abort', watched.listener, { once: true });
    }
    watched.entries.add(entry);
  };

  const unwatch = (signal: AbortSignal, entry: Entry): void => {
    const watched = watches.get(signal);
    if (watched === undefined) return;
    watched.entries.delete(entry);
    if (watched.entries.size === 0) {
      watches.delete(signal);
      signal.removeEventListener('abort', watched.listener);
    }
  };

  // The safety net: each call under it has the count of sweeps done when it started (or was last
  // refreshed). A call started after sweep n is due at sweep n + SWEEPS + 1: between 1 and 1.1
  // fallback timeouts later. A sweep looks at every call (once per tenth of the fallback timeout);
  // a refresh only sets the count, so a call that reports progress costs O(1) however many wait.
  // (Moving it to the end of `entries` instead, by deleting and setting it again, would leave a
  // dead copy of its key in its hash chain per refresh until the table is rebuilt.)
  let sweeps = 0;
  let netted = 0;
  let sweeper: ReturnType<typeof setInterval> | undefined;

  function sweep(): void {
    sweeps++;
    const last = sweeps - SWEEPS - 1;
    const due: Entry[] = [];
    for (const entry of entries.values()) {
      if (entry.net >= 0 && entry.net <= last) due.push(entry);
    }
    for (const entry of due) if (entries.get(entry.id) === entry) giveUp(entry, 'timeout');
    if (netted === 0 && sweeper !== undefined) {
      clearInterval(sweeper);
      sweeper = undefined;
    }
  }

  const net = (entry: Entry): void => {
    entry.net = sweeps;
    if (netted++ === 0 && sweeper === undefined) {
      sweeper = setInterval(sweep, fallbackTimeout / SWEEPS);
      // Node and Bun: the net does not hold the process open; elsewhere it stops when empty.
      (sweeper as unknown as Partial<Holdable>).unref?.();
    }
  };

  const unnet = (entry: Entry): void => {
    entry.net = -1;
    if (--netted === 0 && typeof (sweeper as unknown as Partial<Holdable>).unref !== 'function') {
      clearInterval(sweeper);
      sweeper = undefined;
    }
  };

  const remove = (entry: Entry): void => {
    entries.delete(entry.id);
    if (entry.net >= 0) unnet(entry);
    else if (entry.timer !== undefined) clearTimeout(entry.timer);
    if (entry.signal !== undefined) unwatch(entry.signal, entry);
  };

  /** Ends a call that stopped waiting on its own; no closure per call (timers pass the entry). */
  const giveUp = (entry: Entry, reason: GiveUpReason): void => {
    const waited = entry.net >= 0 ? fallbackTimeout : entry.timeout;
    remove(entry);
    const { id, method } = entry;
    entry.reject(
      reason === 'timeout'
        ? new TimeoutError(waited, { method, id })
        : new AbortError({ method, id, cause: entry.signal!.reason }),
    );
    entry.onGiveUp?.(reason, id, method, reason === 'abort' ? entry.signal!.reason : undefined);
  };
  const expire = (entry: Entry): void => giveUp(entry, 'timeout');

  return {
    get size() {
      return entries.size;
    },
    add(id, method, options) {
      if (entries.has(id))
        throw new Error(`A call with id ${JSON.stringify(id)} is already pending`);
      const signal = options?.signal;
      if (signal?.aborted) {
        return Promise.reject(new AbortError({ method, id, cause: signal.reason }));
      }
      const promise = new Promise<unknown>(takeResolvers);
      const timeout = options?.timeout;
      const timed = timeout !== undefined && timeout > 0 && Number.isFinite(timeout);
      const entry: Entry = {
        id,
        method,
        resolve: nextResolve!,
        reject: nextReject!,
        timer: undefined,
        timeout: timed ? timeout : 0,
        net: -1,
        signal,
        onGiveUp: options?.onGiveUp,
      };
      nextResolve = nextReject = undefined;
      if (timed) entry.timer = setTimeout(expire, timeout, entry);
      else if (netting && options?.fallback === true && timeout === undefined) net(entry);
      if (signal !== undefined) watch(signal, entry);
      entries.set(id, entry);
      return promise;
    },
    settle(response) {
      const entry = entries.get(response.id);
      if (entry === undefined) return false;
      remove(entry);
      if ('error' in response) {
        entry.reject(fromErrorObject(response.error, entry));
      } else entry.resolve(response.result);
      return true;
    },
    reject(id, error) {
      const entry = entries.get(id);
      if (entry === undefined) return false;
      remove(entry);
      entry.reject(error);
      return true;
    },
    rejectAll(makeError) {
      const all = [...entries.values()];
      for (const entry of all) {
        remove(entry);
        entry.reject(makeError(entry));
      }
    },
    refresh(id) {
      const entry = entries.get(id);
      if (entry === undefined) return false;
      if (entry.net >= 0) {
        // Its wait starts again.
        entry.net = sweeps;
      } else if (entry.timeout > 0) {
        clearTimeout(entry.timer);
        entry.timer = setTimeout(expire, entry.timeout, entry);
      }
      return true;
    },
    has(id) {
      return entries.has(id);
    },
    get(id) {
      return entries.get(id);
    },
    calls() {
      return entries.values();
    },
  };
}
