/**
 * The bounded outbox of one subscription: items wait here while the connection's transport is
 * over its high-water mark, so a slow subscriber never blocks the others and never grows memory
 * without bound.
 *
 * @module
 */

/**
 * What happens when a subscription's outbox is full: drop the oldest waiting item, drop the new
 * one, or close that subscription with a `SubscriptionError` (`SUBSCRIPTION_OVERFLOW`).
 */
export type OverflowPolicy = 'drop-oldest' | 'drop-newest' | 'close';

/** The overflow policies, for checking options. */
export const OVERFLOW_POLICIES: ReadonlySet<unknown> = new Set([
  'drop-oldest',
  'drop-newest',
  'close',
]);

/**
 * Promises a transport's `send()` returned that are known to have resolved. Transports that
 * resolve at once hand back one shared resolved promise (the WebSocket transport does); seen
 * here, a send costs no callback at all.
 */
const settled = new WeakSet<Promise<void>>();

/**
 * The promise last found settled: transports that share one resolved promise make this compare
 * the whole cost of a send that did not wait (no hash lookup per delivery).
 */
let lastSettled: Promise<void> | undefined;

/**
 * Sends that went through a promise not known to be settled (each costs a callback), counted
 * for tests. Internal.
 */
export const outboxCounters: { waited: number } = { waited: 0 };

/** One subscription's outbox. Internal. */
export interface Outbox {
  /**
   * Sends a text, or queues it while a send waits for the transport (or while held).
   *
   * @returns `false` when the outbox is full under the `close` policy (nothing was queued)
   */
  push(text: string): boolean;
  /** Starts sending what was queued while held. */
  release(): void;
  /**
   * Queues a last text after everything waiting (whatever the bound), then takes no more: a
   * subscription's end goes out after the items the policy kept, never before them.
   *
   * @param text - the last text, or `undefined` to only stop taking more
   */
  finish(text: string | undefined): void;
  /** Drops everything waiting; later pushes are ignored. */
  clear(): void;
  /** Items dropped by the overflow policy so far. */
  readonly dropped: number;
  /** Items waiting. */
  readonly size: number;
}

/**
 * Makes an outbox. Up to `limit` texts may be handed to the transport without its `send()`
 * having resolved (they sit in the transport's buffer); beyond that, texts wait here, up to
 * `limit` more, and the overflow policy decides what a full outbox does. So a subscription holds
 * at most `2 × limit` items, and a burst of up to `limit` items in one tick never overflows a
 * subscriber that keeps up. Cost: O(1) per item, O(limit) per `drop-oldest` overflow.
 *
 * @param send - sends one text; resolves once the transport can take more
 * @param limit - most texts in the transport's hands, and most texts waiting here
 * @param policy - what to do when full
 * @param onFailed - told when a send rejects (the connection went away)
 * @returns the outbox, held until {@link Outbox.release}
 */
export function createOutbox(
  send: (text: string) => Promise<void>,
  limit: number,
  policy: OverflowPolicy,
  onFailed: (error: unknown) => void,
): Outbox {
  const queue: string[] = [];
  let held = true; // until release()
  let cleared = false;
  let finished = false;
  let outstanding = 0;
  let dropped = 0;

  const sent = (): void => {
    outstanding--;
    pump();
  };
  const fail = (error: unknown): void => {
    outstanding--;
    if (cleared) return;
    // The connection went away: nothing waiting can be sent any more.
    cleared = true;
    queue.length = 0;
    onFailed(error);
  };
  const sendNow = (text: string): void => {
    const promise = send(text);
    if (promise === lastSettled) return;
    if (settled.has(promise)) {
      lastSettled = promise;
      return;
    }
    outboxCounters.waited++;
    outstanding++;
    promise.then(() => {
      settled.add(promise);
      sent();
    }, fail);
  };
  const pump = (): void => {
    while (!held && !cleared && queue.length > 0 && outstanding < limit) {
      sendNow(queue.shift() as string);
    }
  };

  return {
    push(text: string): boolean {
      if (cleared || finished) return true;
      if (!held && outstanding < limit && queue.length === 0) {
        sendNow(text);
        return true;
      }
      if (queue.length >= limit) {
        if (policy === 'close') return false;
        dropped++;
        if (policy === 'drop-newest') return true;
        queue.shift();
      }
      queue.push(text);
      return true;
    },
    release(): void {
      held = false;
      pump();
    },
    finish(text: string | undefined): void {
      if (cleared || finished) return;
      finished = true;
      if (text === undefined) return;
      queue.push(text);
      pump();
    },
    clear(): void {
      cleared = true;
      queue.length = 0;
    },
    get dropped() {
      return dropped;
    },
    get size() {
      return queue.length;
    },
  };
}
