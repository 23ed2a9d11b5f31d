/// <reference lib="esnext.disposable" preserve="true" />
/**
 * One subscription on the client: its options, its public face (`Subscription`, iterable), and
 * the handle the subscription table drives (delivery with the item check, the item queue of the
 * async-iterator form, failure, end, and unsubscribe on abort or `break`).
 *
 * @module
 */
import {
  type JsonRpcParams,
  type StandardSchemaV1,
  type SubscriptionDialect,
  SubscriptionError,
} from '@jsonrpc-kit/core';
import { asyncDisposeSymbol, FifoQueue, formatIssues, validate } from '@jsonrpc-kit/core/engine';
import { ResultValidationError } from './errors.js';

/** What the subscriber needs from the client. Internal. */
export interface SubscriberHost {
  readonly dialect: SubscriptionDialect;
  request(method: string, params: JsonRpcParams): Promise<unknown>;
  isClosed(): boolean;
  /** Decodes each item (the client's codec), before the item schema sees it. */
  readonly decode?: ((value: unknown) => unknown) | undefined;
  /** Told when the first subscription goes live (`true`) and when the last one ends (`false`). */
  onActive?(active: boolean): void;
}

/**
 * Most items an async-iterator subscription holds for a slow `for await` loop before it drops
 * the oldest.
 * @default 1024
 * @example
 * ```ts
 * client.subscribe('ticks', undefined, { maxBuffered: DEFAULT_MAX_BUFFERED / 4 });
 * ```
 */
export const DEFAULT_MAX_BUFFERED: number = 1024;

/** Options of `client.subscribe()`. */
export interface SubscribeOptions<I = unknown> {
  /**
   * Receives each item.
   *
   * @param item - the item (validated when `item` is given)
   */
  readonly onItem?: ((item: I) => void) | undefined;
  /**
   * Told once when the subscription fails: refused (at first or on resubscribe, a
   * `SubscriptionError` with code `SUBSCRIPTION_REFUSED`), ended by the server
   * (`SUBSCRIPTION_ENDED`), or the client closed (`ConnectionClosedError`). Also told of items
   * that break the item schema (a `ResultValidationError`; the item is skipped).
   *
   * @param error - what failed
   */
  readonly onError?: ((error: Error) => void) | undefined;
  /**
   * Told after the subscription was re-established on a reconnected transport.
   *
   * @param id - the new server id
   */
  readonly onResubscribed?: ((id: string) => void) | undefined;
  /** Aborting it unsubscribes. */
  readonly signal?: AbortSignal | undefined;
  /**
   * Whether to subscribe again, with the same params, after the transport reconnects. Off, the
   * subscription fails with `SUBSCRIPTION_ENDED` when the connection drops.
   * @default true
   */
  readonly resubscribe?: boolean | undefined;
  /** Schema of each item: items are validated and typed by it. */
  readonly item?: StandardSchemaV1 | undefined;
  /**
   * Most items held for the async-iterator form while the loop is busy (then the oldest is
   * dropped).
   * @default DEFAULT_MAX_BUFFERED (1024)
   */
  readonly maxBuffered?: number | undefined;
}

/**
 * A live subscription. Iterate it (`for await (const item of subscription)`) or pass `onItem`;
 * leaving the loop unsubscribes.
 */
export interface Subscription<I = unknown> extends AsyncIterable<I> {
  /** The subscription's name. */
  readonly name: string;
  /** The server's current id for it; `undefined` until subscribed and while resubscribing. */
  readonly id: string | undefined;
  /** Resolves with the first id; rejects when the server refuses the subscription. */
  readonly ready: Promise<string>;
  /** Whether it has ended (unsubscribed or failed). */
  readonly ended: boolean;
  /**
   * Unsubscribes: tells the server, stops delivering, ends the iterator. Idempotent.
   *
   * @returns resolves once the server answered (or at once when the connection is gone)
   */
  unsubscribe(): Promise<void>;
  /** `unsubscribe()`, for `await using`. */
  [Symbol.asyncDispose](): Promise<void>;
}

/** One subscription as the table sees it. Internal. */
export interface Handle {
  readonly name: string;
  readonly params: JsonRpcParams | undefined;
  readonly options: SubscribeOptions<any> | undefined;
  id: string | undefined;
  ended: boolean;
  /** How many times it was (re)subscribed: a late answer of an older attempt is dropped. */
  attempt: number;
  /** A subscribe of this handle waits for its answer. */
  inFlight: boolean;
  deliver(item: unknown): void;
  fail(error: Error): void;
  finish(): void;
  settle(id: string): void;
}

/**
 * Makes one subscription: its handle and its public face.
 *
 * @param host - the client's request function, dialect and state
 * @param name - the subscription's name
 * @param params - its params
 * @param options - its options
 * @param forget - takes an ended handle out of the table
 * @returns the handle, the subscription, and the listener that unsubscribes on abort
 */
export function createHandle<I>(
  host: SubscriberHost,
  name: string,
  params: JsonRpcParams | undefined,
  options: SubscribeOptions<I> | undefined,
  forget: (handle: Handle) => void,
): { handle: Handle; subscription: Subscription<I>; onAbort: () => void } {
  const { dialect } = host;
  const maxBuffered = options?.maxBuffered ?? DEFAULT_MAX_BUFFERED;
  const buffered = new FifoQueue<I>();
  let waiter: { resolve(r: IteratorResult<I>): void; reject(e: unknown): void } | undefined;
  let failure: Error | undefined;
  let resolveReady!: (id: string) => void;
  let rejectReady!: (error: unknown) => void;
  const ready = new Promise<string>((resolve, reject) => {
    resolveReady = resolve;
    rejectReady = reject;
  });
  ready.catch(() => undefined);
  const signal = options?.signal;
  let subscribedOnce = false;

  const detach = (): void => {
    handle.ended = true;
    forget(handle);
    signal?.removeEventListener('abort', onAbort);
  };
  const wake = (): void => {
    const w = waiter;
    if (w === undefined) return;
    waiter = undefined;
    if (failure !== undefined) w.reject(failure);
    else w.resolve({ done: true, value: undefined });
  };

  const handle: Handle = {
    name,
    params,
    options,
    id: undefined,
    ended: false,
    attempt: 0,
    inFlight: false,
    deliver(raw) {
      if (handle.ended) return;
      let item = raw;
      const schema = options?.item;
      if (schema !== undefined) {
        const verdict = validate(schema, raw);
        if (!(verdict instanceof Promise)) {
          if (verdict.issues !== undefined) {
            options?.onError?.(
              new ResultValidationError(formatIssues(verdict.issues), raw, { method: name }),
            );
            return;
          }
          item = verdict.value;
        }
      }
      options?.onItem?.(item as I);
      if (waiter !== undefined) {
        const w = waiter;
        waiter = undefined;
        w.resolve({ done: false, value: item as I });
      } else if (iterated || options?.onItem === undefined) {
        if (buffered.length >= maxBuffered) buffered.shift();
        buffered.push(item as I);
      }
    },
    fail(error) {
      if (handle.ended) return;
      detach();
      failure = error;
      rejectReady(error);
      options?.onError?.(error);
      wake();
    },
    finish() {
      if (handle.ended) return;
      detach();
      rejectReady(new SubscriptionError('SUBSCRIPTION_ENDED', 'Unsubscribed', { name }));
      wake();
    },
    settle(id) {
      if (subscribedOnce) options?.onResubscribed?.(id);
      else resolveReady(id);
      subscribedOnce = true;
    },
  };

  const unsubscribe = (): Promise<void> => {
    if (handle.ended) return Promise.resolve();
    const id = handle.id;
    handle.finish();
    if (id === undefined || host.isClosed()) return Promise.resolve();
    return host.request(dialect.unsubscribe, dialect.toUnsubscribeParams(id)).then(
      () => undefined,
      () => undefined,
    );
  };
  function onAbort(): void {
    void unsubscribe();
  }

  let iterated = false;
  const subscription: Subscription<I> = {
    name,
    get id() {
      return handle.id;
    },
    ready,
    get ended() {
      return handle.ended;
    },
    unsubscribe,
    [asyncDisposeSymbol]: unsubscribe,
    [Symbol.asyncIterator](): AsyncIterator<I> {
      iterated = true;
      return {
        next(): Promise<IteratorResult<I>> {
          if (buffered.length > 0)
            return Promise.resolve({ done: false, value: buffered.shift() as I });
          if (failure !== undefined) return Promise.reject(failure);
          if (handle.ended) return Promise.resolve({ done: true, value: undefined });
          return new Promise((resolve, reject) => {
            waiter = { resolve, reject };
          });
        },
        return(): Promise<IteratorResult<I>> {
          buffered.clear();
          return unsubscribe().then(() => ({ done: true, value: undefined }));
        },
      };
    },
  };
  return { handle, subscription, onAbort };
}
