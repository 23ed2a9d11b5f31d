/// <reference lib="esnext.disposable" preserve="true" />
/**
 * The client half of subscriptions: subscribe through a dialect, route pushed items to their
 * handles by subscription id, resubscribe after the transport reconnects (new server ids, same
 * handles), and unsubscribe on `unsubscribe()`, on abort and on `break` out of a `for await`.
 *
 * @module
 */
import {
  asyncDisposeSymbol,
  ConnectionClosedError,
  formatIssues,
  isJsonRpcError,
  type JsonRpcNotification,
  type JsonRpcParams,
  type StandardSchemaV1,
  type SubscriptionDialect,
  SubscriptionError,
  validate,
} from '@jsonrpc-kit/core';
import { ResultValidationError } from './errors.js';

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

/** The client's subscription table. Internal. */
export interface Subscriber {
  subscribe<I>(
    name: string,
    params: JsonRpcParams | undefined,
    options?: SubscribeOptions<I>,
  ): Subscription<I>;
  /** Routes a notification; `true` when it belonged to a subscription. */
  route(notification: JsonRpcNotification): boolean;
  /** The transport reconnected: subscribe again. */
  reconnected(): void;
  /** The client closed: every subscription fails. */
  closed(error?: unknown): void;
  /** Live subscriptions. */
  readonly size: number;
}

interface Handle {
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

function itemsOf(params: JsonRpcParams | undefined): Record<string, unknown> | undefined {
  return typeof params === 'object' && params !== null && !Array.isArray(params)
    ? (params as Record<string, unknown>)
    : undefined;
}

/**
 * Makes the subscription table of one client.
 *
 * @param host - the client's request function, dialect and state
 * @returns the table
 */
export function createSubscriber(host: SubscriberHost): Subscriber {
  const { dialect, decode } = host;
  const handles = new Set<Handle>();
  const byId = new Map<string, Handle>();
  /** Items that came for an id not yet known while a subscribe was on its way. */
  const early = new Map<string, unknown[]>();
  /**
   * Ends (`null`, or the error object) that came for an id not yet known: an iterable that runs
   * to its end in one go sends its answer, items and end together, and the end may be read
   * before the answer is handled.
   */
  const earlyEnds = new Map<string, Record<string, unknown> | null>();
  let subscribing = 0;
  /** Most early items held at once, over all ids (a peer cannot grow the table without bound). */
  const EARLY_LIMIT = 256;
  let earlyCount = 0;
  const clearEarly = (): void => {
    early.clear();
    earlyEnds.clear();
    earlyCount = 0;
  };

  const settled = (): void => {
    if (--subscribing === 0) clearEarly();
  };

  const send = (handle: Handle): void => {
    const attempt = ++handle.attempt;
    handle.inFlight = true;
    subscribing++;
    host
      .request(dialect.subscribe, dialect.toSubscribeParams(handle.name, handle.params))
      .then(
        (id) => {
          if (handle.attempt !== attempt) return;
          if (typeof id !== 'string' && typeof id !== 'number') {
            handle.fail(
              new SubscriptionError(
                'SUBSCRIPTION_REFUSED',
                `Subscribe to "${handle.name}" answered no id`,
                {
                  name: handle.name,
                },
              ),
            );
            return;
          }
          const key = String(id);
          if (handle.ended) {
            host
              .request(dialect.unsubscribe, dialect.toUnsubscribeParams(key))
              .catch(() => undefined);
            return;
          }
          handle.id = key;
          byId.set(key, handle);
          handle.settle(key);
          const waiting = early.get(key);
          early.delete(key);
          earlyCount -= waiting?.length ?? 0;
          for (const item of waiting ?? []) handle.deliver(item);
          if (earlyEnds.has(key)) {
            const error = earlyEnds.get(key);
            earlyEnds.delete(key);
            earlyCount--;
            endHandle(handle, error ?? undefined);
          }
        },
        (error: unknown) => {
          if (handle.attempt !== attempt || handle.ended) return;
          // Lost with the connection: the reconnect subscribes again.
          if (error instanceof ConnectionClosedError && !host.isClosed()) return;
          handle.fail(
            isJsonRpcError(error)
              ? new SubscriptionError(
                  'SUBSCRIPTION_REFUSED',
                  `The server refused subscription "${handle.name}": ${error.message}`,
                  { name: handle.name, cause: error },
                )
              : error instanceof Error
                ? error
                : new Error(String(error)),
          );
        },
      )
      .finally(() => {
        if (handle.attempt === attempt) handle.inFlight = false;
        settled();
      });
  };

  /** Ends a handle as the server's end notification says: cleanly, or with its error. */
  const endHandle = (handle: Handle, error: Record<string, unknown> | undefined): void => {
    if (error === undefined) handle.finish();
    else {
      handle.fail(
        new SubscriptionError(
          'SUBSCRIPTION_ENDED',
          `The server ended subscription "${handle.name}": ${String(error.message)}`,
          {
            name: handle.name,
            cause: error,
          },
        ),
      );
    }
  };

  const subscribe = <I>(
    name: string,
    params: JsonRpcParams | undefined,
    options?: SubscribeOptions<I>,
  ): Subscription<I> => {
    const maxBuffered = options?.maxBuffered ?? DEFAULT_MAX_BUFFERED;
    const buffered: I[] = [];
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
      if (handles.delete(handle) && handles.size === 0) host.onActive?.(false);
      if (handle.id !== undefined) byId.delete(handle.id);
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
            buffered.length = 0;
            return unsubscribe().then(() => ({ done: true, value: undefined }));
          },
        };
      },
    };

    if (host.isClosed()) {
      handle.fail(new ConnectionClosedError(undefined, { method: dialect.subscribe }));
      return subscription;
    }
    if (signal?.aborted) {
      handle.finish();
      return subscription;
    }
    signal?.addEventListener('abort', onAbort, { once: true });
    handles.add(handle);
    if (handles.size === 1) host.onActive?.(true);
    send(handle);
    return subscription;
  };

  return {
    subscribe,
    route(notification) {
      const params = itemsOf(notification.params);
      if (params === undefined) return false;
      const method = notification.method;
      if (method !== dialect.item && method !== dialect.end) return false;
      const raw = params[dialect.idKey];
      if (typeof raw !== 'string' && typeof raw !== 'number') return false;
      const id = String(raw);
      const handle = byId.get(id);
      if (method === dialect.end) {
        const error = itemsOf(params.error as JsonRpcParams | undefined);
        if (handle !== undefined) {
          endHandle(handle, error);
          return true;
        }
        // Read before the answer carrying its id was handled: kept, applied after the items.
        if (subscribing === 0) return false;
        if (earlyCount >= EARLY_LIMIT || earlyEnds.has(id)) return true;
        earlyEnds.set(id, error ?? null);
        earlyCount++;
        return true;
      }
      if (handle === undefined) {
        if (subscribing === 0) return false;
        if (earlyCount >= EARLY_LIMIT) return true;
      }
      const wireItem = params[dialect.itemKey];
      const item = decode === undefined ? wireItem : decode(wireItem);
      if (handle !== undefined) {
        handle.deliver(item);
        return true;
      }
      let waiting = early.get(id);
      if (waiting === undefined) early.set(id, (waiting = []));
      waiting.push(item);
      earlyCount++;
      return true;
    },
    reconnected() {
      byId.clear();
      clearEarly();
      for (const handle of handles) {
        handle.id = undefined;
        // Calls in flight at the disconnect were failed then: one still in flight was made while
        // disconnected, went out with the reconnect, and subscribes this handle already.
        if (handle.inFlight) continue;
        if (handle.options?.resubscribe === false) {
          handle.fail(
            new SubscriptionError(
              'SUBSCRIPTION_ENDED',
              `Subscription "${handle.name}" ended: the connection was lost`,
              {
                name: handle.name,
              },
            ),
          );
        } else send(handle);
      }
    },
    closed(error) {
      for (const handle of handles) {
        handle.fail(
          new ConnectionClosedError(
            'Connection closed',
            error === undefined
              ? { method: dialect.subscribe }
              : { method: dialect.subscribe, cause: error },
          ),
        );
      }
    },
    get size() {
      return handles.size;
    },
  };
}
