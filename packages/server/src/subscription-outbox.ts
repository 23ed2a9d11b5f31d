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
  /** Drops everything waiting; later pushes are ignored. */
  clear(): void;
  /** Items dropped by the overflow policy so far. */
  readonly dropped: number;
  /** Items waiting. */
  readonly size: number;
}

/**
 * Makes an outbox. One send is awaited at a time; texts pushed meanwhile wait, up to `limit`, and
 * go out together when it resolves. Cost: O(1) per item, O(limit) per `drop-oldest` overflow.
 *
 * @param send - sends one text; resolves once the transport can take more
 * @param limit - most texts waiting
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
  let queue: string[] = [];
  let busy = true; // held until release()
  let cleared = false;
  let dropped = 0;

  const flush = (): void => {
    if (cleared || queue.length === 0) {
      busy = false;
      return;
    }
    const texts = queue;
    queue = [];
    let last: Promise<void> | undefined;
    for (const text of texts) last = send(text);
    last?.then(flush, fail);
  };
  const fail = (error: unknown): void => {
    busy = false;
    if (!cleared) onFailed(error);
  };

  return {
    push(text: string): boolean {
      if (cleared) return true;
      if (!busy) {
        busy = true;
        send(text).then(flush, fail);
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
    release: flush,
    clear(): void {
      cleared = true;
      queue = [];
    },
    get dropped() {
      return dropped;
    },
    get size() {
      return queue.length;
    },
  };
}
