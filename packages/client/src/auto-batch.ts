/**
 * The auto-batch queue: calls and notifications made in the same tick (or within `wait` ms) go
 * out as one batch of at most `maxSize` messages; a lone one goes out as a single message.
 *
 * @module
 */
import type { JsonRpcId } from '@jsonrpc-kit/core';
import type { Session } from '@jsonrpc-kit/core/engine';
import { deferred, type Exchange, type Exchanges } from './exchanges.js';

/** Marks a notification among the queued ids. */
export const NOTIFICATION: unique symbol = Symbol('notification');

/** The queue. Internal. */
export interface AutoBatchQueue {
  /**
   * Queues one message; a full queue is sent at once.
   *
   * @param id - the call's id, or {@link NOTIFICATION}
   * @param method - its method
   * @param text - the serialized message
   * @param canGiveUp - whether the call can give up (then the send can be aborted)
   * @returns the exchange it joined
   */
  enqueue(
    id: JsonRpcId | typeof NOTIFICATION,
    method: string,
    text: string,
    canGiveUp: boolean,
  ): Exchange;
  /**
   * Queues a notification.
   *
   * @returns resolves once the batch holding it was sent
   */
  notify(method: string, text: string): Promise<void>;
  /** Sends what the queue holds now. */
  flush(): void;
  /**
   * Drops the queue (the client closed): its notifications reject with `error`.
   *
   * @param error - the rejection
   */
  drop(error: Error): void;
}

/**
 * Creates the auto-batch queue of a client.
 *
 * @param session - the client's session
 * @param exchanges - the client's exchanges
 * @param wait - milliseconds to collect calls (`0`: the same tick)
 * @param maxSize - most messages in one batch
 * @returns the queue
 */
export function createAutoBatchQueue(
  session: Session,
  exchanges: Exchanges,
  wait: number,
  maxSize: number,
): AutoBatchQueue {
  const pending = session.pending;
  let queue: Exchange | undefined;
  let timer: ReturnType<typeof setTimeout> | undefined;

  const flush = (): void => {
    const exchange = queue;
    if (exchange === undefined) return;
    queue = undefined;
    if (timer !== undefined) {
      clearTimeout(timer);
      timer = undefined;
    }
    exchange.sent = true;
    const { ids } = exchange;
    const texts = exchange.texts!;
    const out: string[] = [];
    for (let i = 0; i < ids.length; i++) {
      const id = ids[i]!;
      // Calls that gave up while queued are not sent.
      if (id === (NOTIFICATION as unknown) || pending.has(id)) out.push(texts[i]!);
    }
    if (out.length === 0) {
      exchange.notified?.resolve();
      return;
    }
    const text = out.length === 1 ? out[0]! : '[' + out.join(',') + ']';
    session.send(text, exchange.controller?.signal).then(
      () => exchange.notified?.resolve(),
      (error: unknown) => exchanges.fail(exchange, error),
    );
  };

  const enqueue: AutoBatchQueue['enqueue'] = (id, method, text, canGiveUp) => {
    let exchange = queue;
    if (exchange === undefined) {
      exchange = queue = exchanges.create([]);
      if (wait > 0) timer = setTimeout(flush, wait);
      else {
        const scheduled = exchange;
        queueMicrotask(() => {
          if (queue === scheduled) flush();
        });
      }
    }
    exchange.ids.push(id as JsonRpcId);
    exchange.methods.push(method);
    exchange.texts!.push(text);
    if (id !== NOTIFICATION) {
      exchange.live++;
      exchanges.byId.set(id as JsonRpcId, exchange);
      if (canGiveUp && exchange.controller === undefined) {
        exchange.controller = new AbortController();
      }
    }
    if (exchange.ids.length >= maxSize) flush();
    return exchange;
  };

  return {
    enqueue,
    notify(method, text) {
      const exchange = enqueue(NOTIFICATION, method, text, false);
      // A full queue was flushed by enqueue; its deferred is still the one to wait on.
      exchange.notified ??= deferred();
      return exchange.notified.promise;
    },
    flush,
    drop(error) {
      const exchange = queue;
      queue = undefined;
      if (timer !== undefined) clearTimeout(timer);
      exchange?.notified?.reject(error);
    },
  };
}
