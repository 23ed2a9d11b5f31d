/// <reference lib="esnext.disposable" preserve="true" />
/**
 * The client half of subscriptions: subscribe through a dialect, route pushed items to their
 * handles by subscription id, resubscribe after the transport reconnects (new server ids, same
 * handles), and unsubscribe on `unsubscribe()`, on abort and on `break` out of a `for await`
 * (each subscription's handle and public face are in `subscription-handle.ts`).
 *
 * @module
 */
import {
  ConnectionClosedError,
  isJsonRpcError,
  type JsonRpcNotification,
  type JsonRpcParams,
  SubscriptionError,
} from '@jsonrpc-kit/core';
import {
  createHandle,
  type Handle,
  type SubscribeOptions,
  type SubscriberHost,
  type Subscription,
} from './subscription-handle.js';

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
    const { handle, subscription, onAbort } = createHandle(host, name, params, options, (ended) => {
      if (handles.delete(ended) && handles.size === 0) host.onActive?.(false);
      if (ended.id !== undefined) byId.delete(ended.id);
    });
    const signal = options?.signal;

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
