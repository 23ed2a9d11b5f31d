/**
 * The one budget all subscriptions of a connection share ({@link ConnectionBudget}), and what the
 * budgets of one owner hold together ({@link HeldTotals}): what bounds the bytes a connection's
 * subscription outboxes hold, however many they are.
 *
 * @module
 */

/** What a set of budgets holds together (all connections of one `createSubscriptions()`). */
export interface HeldTotals {
  /** Items waiting in outboxes or handed to a transport whose send has not resolved. */
  items: number;
  /** Their size: UTF-16 units of a text, bytes of bytes. */
  bytes: number;
}

/**
 * What the budget asks of an outbox that waits for it to open again (a subscription's `Outbox`).
 * Internal.
 */
export interface StalledOutbox {
  /**
   * Sends the oldest waiting message, if the outbox may send now.
   *
   * @returns whether more waits to be sent after this one
   */
  sendOne(): boolean;
}

/**
 * The one budget all subscriptions of a connection share. Its half may sit in the transport's
 * hands (sends handed over that have not resolved: the transport is over its high-water mark,
 * or has not written its turn yet); once that half is taken, no outbox of the connection hands
 * anything more to the transport and items wait in their outboxes, up to the other half; past
 * that, each subscription's overflow policy applies. So a connection's subscriptions hold at
 * most about `limit` bytes, however many they are. Internal.
 */
export class ConnectionBudget {
  /** Most bytes in the transport's hands; as many may wait in the outboxes. */
  readonly half: number;
  /** Whether outboxes may hand items to the transport (less than `half` in its hands). */
  open = true;
  /** Bytes handed to the transport whose send has not resolved. */
  handed = 0;
  /** Bytes waiting in the outboxes. */
  waiting = 0;
  /** Outboxes with items waiting for the budget to open again, pumped in turn when it does. */
  readonly stalled: Set<StalledOutbox> = new Set();
  /** What every budget of the same owner holds together, kept along. */
  readonly totals: HeldTotals;

  /**
   * @param limit - most bytes the connection's subscriptions hold together
   * @param totals - what every budget of the same owner holds, kept along
   */
  constructor(limit: number, totals: HeldTotals = { items: 0, bytes: 0 }) {
    this.half = limit / 2;
    this.totals = totals;
  }

  /** Items held: waiting, or handed to the transport whose sends have not resolved. */
  items = 0;

  /** Counts items held (negative: no longer held), here and in the totals. */
  held(items: number, bytes: number): void {
    this.items += items;
    this.totals.items += items;
    this.totals.bytes += bytes;
  }

  /** A send of `size` resolved: opens the budget again once under its half, pumping in turn. */
  settle(size: number): void {
    this.handed -= size;
    this.held(-1, -size);
    if (this.open || this.handed >= this.half) return;
    this.open = true;
    const stalled = this.stalled;
    // One item of each stalled outbox in turn: one subscription does not take the whole window.
    while (this.open && stalled.size > 0) {
      for (const outbox of stalled) {
        if (!this.open) break;
        if (!outbox.sendOne()) stalled.delete(outbox);
      }
    }
  }
}
