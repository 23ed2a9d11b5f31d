/**
 * The bounded outbox of one subscription: items wait here while the connection's transport is
 * over its high-water mark, so a slow subscriber never blocks the others and never grows memory
 * without bound. The budget the outboxes of one connection share is in `connection-budget.ts`.
 *
 * @module
 */
import { FifoQueue } from '@jsonrpc-kit/core/engine';
import { ConnectionBudget, type HeldTotals } from './connection-budget.js';
import { joinBytes } from './utf8.js';

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

/**
 * Where an outbox sends its texts: a connection's transport (its `send()` called directly), or
 * an adapter over the peer. Internal.
 */
export interface TextTarget {
  /**
   * Sends one text.
   *
   * @returns resolves once the transport can take more
   */
  send(text: string): Promise<void>;
  /**
   * Sends one text given as its UTF-8 bytes, in one or two parts, where the transport takes
   * bytes (see core's `Transport.sendBytes`).
   *
   * @returns resolves once the transport can take more
   */
  sendBytes?(head: Uint8Array, tail?: Uint8Array): Promise<void>;
}

/** What an outbox sends: a text, or its UTF-8 bytes when the target takes bytes. */
export type OutboxMessage = string | Uint8Array;

/** The size an outbox counts for a message: UTF-16 units of a text (a cheap stand-in), bytes. */
function sizeOf(message: OutboxMessage): number {
  return message.length;
}
/** The budget of an outbox made without one: no connection-wide bound. */
const UNBOUNDED_TOTALS: HeldTotals = { items: 0, bytes: 0 };

/**
 * One subscription's outbox. A class: a server holds one per subscription, and the delivery of
 * an item that does not wait is a few reads of this object's own fields and one call to its
 * target, with no closure or promise callback (the fan-out of one item to many subscribers
 * touches as few objects per subscriber as it can). Internal.
 */
export class Outbox {
  readonly #queue = new FifoQueue<OutboxMessage>();
  #target: TextTarget;
  #takesBytes: boolean;
  readonly #limit: number;
  readonly #policy: OverflowPolicy;
  readonly #onFailed: (error: unknown) => void;
  readonly #budget: ConnectionBudget;
  /** Size of what waits in the queue, counted in the budget's `waiting`. */
  #queuedBytes = 0;
  #held = true; // until release()
  #cleared = false;
  #finished = false;
  #outstanding = 0;
  #dropped = 0;
  /**
   * Not held, cleared or finished, nothing waiting, fewer than `limit` sends outstanding: a push
   * sends at once. One field, so that a delivery that does not wait reads nothing else.
   */
  #flowing = false;

  /**
   * Up to `limit` texts may be handed to the target without its `send()` having resolved (they
   * sit in the transport's buffer); beyond that, texts wait here, up to `limit` more, and the
   * overflow policy decides what a full outbox does; the connection's budget bounds what all its
   * outboxes hold together the same way, in bytes. So a subscription holds at most
   * `2 × limit` items, and a burst of up to `limit` items in one tick never overflows a
   * subscriber that keeps up. Cost: O(1) per item, O(limit) per `drop-oldest` overflow.
   *
   * @param target - sends one text; its promise resolves once the transport can take more
   * @param limit - most texts in the transport's hands, and most texts waiting here
   * @param policy - what to do when full
   * @param onFailed - told when a send rejects (the connection went away)
   * @param budget - the budget shared with the other subscriptions of its connection (none:
   *   only this outbox's own bound)
   */
  constructor(
    target: TextTarget,
    limit: number,
    policy: OverflowPolicy,
    onFailed: (error: unknown) => void,
    budget: ConnectionBudget = new ConnectionBudget(Number.POSITIVE_INFINITY, UNBOUNDED_TOTALS),
  ) {
    this.#budget = budget;
    this.#target = target;
    this.#takesBytes = typeof target.sendBytes === 'function';
    this.#limit = limit;
    this.#policy = policy;
    this.#onFailed = onFailed;
  }

  /** Items dropped by the overflow policy so far. */
  get dropped(): number {
    return this.#dropped;
  }

  /** Items waiting. */
  get size(): number {
    return this.#queue.length;
  }

  /** Whether the target takes bytes: then a text sent to many outboxes is encoded once. */
  get takesBytes(): boolean {
    return this.#takesBytes;
  }

  /**
   * Sends a message, or queues it while a send waits for the transport (or while held). Give
   * bytes only when {@link Outbox.takesBytes}.
   *
   * @returns `false` when the outbox is full under the `close` policy (nothing was queued)
   */
  push(message: OutboxMessage): boolean {
    if (this.#flowing && this.#budget.open) {
      this.#sendNow(message);
      return true;
    }
    if (this.#cleared || this.#finished) return true;
    const queue = this.#queue;
    const budget = this.#budget;
    const size = sizeOf(message);
    if (queue.length >= this.#limit || budget.waiting + size > budget.half) {
      if (this.#policy === 'close') return false;
      if (this.#policy === 'drop-newest') {
        this.#dropped++;
        return true;
      }
      // drop-oldest: this subscription's own oldest items make the room, as far as they can.
      while (
        queue.length > 0 &&
        (queue.length >= this.#limit || budget.waiting + size > budget.half)
      ) {
        this.#unqueue();
        this.#dropped++;
      }
      if (budget.waiting + size > budget.half) {
        // The others' items fill the budget (or this one is too big to wait): it is dropped.
        this.#dropped++;
        return true;
      }
    }
    this.#enqueue(message, size);
    this.#flowing = false;
    if (!this.#held && !budget.open) budget.stalled.add(this);
    return true;
  }

  /** Queues a message, counting it in the budget. */
  #enqueue(message: OutboxMessage, size: number): void {
    this.#queue.push(message);
    this.#queuedBytes += size;
    const budget = this.#budget;
    budget.waiting += size;
    budget.held(1, size);
  }

  /** Takes the oldest message waiting, uncounting it. */
  #unqueue(): OutboxMessage {
    const message = this.#queue.shift() as OutboxMessage;
    const size = sizeOf(message);
    this.#queuedBytes -= size;
    const budget = this.#budget;
    budget.waiting -= size;
    budget.held(-1, -size);
    return message;
  }

  /** Drops everything waiting, uncounting it. */
  #drain(): void {
    const budget = this.#budget;
    budget.waiting -= this.#queuedBytes;
    budget.held(-this.#queue.length, -this.#queuedBytes);
    this.#queuedBytes = 0;
    this.#queue.clear();
    budget.stalled.delete(this);
  }

  /**
   * Sends the oldest waiting message, if this outbox may send now; for the budget's turn.
   *
   * @returns whether more waits to be sent after this one
   */
  sendOne(): boolean {
    // An outbox at its own bound of sends resumes when one of them settles.
    if (this.#held || this.#cleared || this.#queue.length === 0) return false;
    if (this.#outstanding >= this.#limit) return false;
    this.#sendNow(this.#unqueue());
    if (this.#queue.length > 0) return true;
    this.#flowing = !this.#finished && this.#outstanding < this.#limit;
    return false;
  }

  /**
   * Starts sending what was queued while held.
   *
   * @param target - sends from now on instead of the target the outbox was made with (a
   *   connection's transport, once known to take texts straight)
   */
  release(target?: TextTarget): void {
    if (target !== undefined) {
      this.#target = target;
      this.#takesBytes = typeof target.sendBytes === 'function';
    }
    this.#held = false;
    this.#pump();
  }

  /**
   * Queues a last text after everything waiting (whatever the bound), then takes no more: a
   * subscription's end goes out after the items the policy kept, never before them.
   *
   * @param text - the last text, or `undefined` to only stop taking more
   */
  finish(text: string | undefined): void {
    if (this.#cleared || this.#finished) return;
    this.#finished = true;
    this.#flowing = false;
    if (text === undefined) return;
    this.#enqueue(text, sizeOf(text));
    this.#pump();
  }

  /** Drops everything waiting; later pushes are ignored. */
  clear(): void {
    this.#cleared = true;
    this.#flowing = false;
    this.#drain();
  }

  /**
   * Sends a message of two parts of bytes (each subscriber's head, an item's shared tail), as
   * they are when nothing waits, else joined and queued. Only when {@link Outbox.takesBytes}.
   *
   * @returns as {@link Outbox.push}
   */
  pushBytes(head: Uint8Array, tail: Uint8Array): boolean {
    if (this.#flowing && this.#budget.open) {
      this.#watch(this.#target.sendBytes!(head, tail), head.length + tail.length);
      return true;
    }
    return this.push(joinBytes(head, tail));
  }

  #sendNow(message: OutboxMessage): void {
    this.#watch(
      typeof message === 'string' ? this.#target.send(message) : this.#target.sendBytes!(message),
      message.length,
    );
  }

  /**
   * Follows a send's promise, unless it is known to have settled; until it settles, `size`
   * counts in the connection's budget as in the transport's hands.
   */
  #watch(promise: Promise<void>, size: number): void {
    if (promise === lastSettled) return;
    if (settled.has(promise)) {
      lastSettled = promise;
      return;
    }
    outboxCounters.waited++;
    if (++this.#outstanding >= this.#limit) this.#flowing = false;
    const budget = this.#budget;
    budget.handed += size;
    budget.held(1, size);
    if (budget.handed >= budget.half) budget.open = false;
    promise.then(
      () => {
        settled.add(promise);
        this.#outstanding--;
        budget.settle(size);
        this.#pump();
      },
      (error: unknown) => {
        budget.settle(size);
        this.#fail(error);
      },
    );
  }

  #fail(error: unknown): void {
    this.#outstanding--;
    if (this.#cleared) return;
    // The connection went away: nothing waiting can be sent any more.
    this.#cleared = true;
    this.#flowing = false;
    this.#drain();
    this.#onFailed(error);
  }

  #pump(): void {
    const queue = this.#queue;
    const budget = this.#budget;
    while (
      !this.#held &&
      !this.#cleared &&
      queue.length > 0 &&
      this.#outstanding < this.#limit &&
      budget.open
    ) {
      this.#sendNow(this.#unqueue());
    }
    if (!this.#held && !this.#cleared && queue.length > 0 && !budget.open) {
      budget.stalled.add(this);
    } else if (queue.length === 0) budget.stalled.delete(this);
    this.#flowing =
      !this.#held &&
      !this.#cleared &&
      !this.#finished &&
      queue.length === 0 &&
      this.#outstanding < this.#limit;
  }
}
