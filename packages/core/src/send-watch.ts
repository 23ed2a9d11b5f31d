/**
 * Failure handling of sends with one handler per promise rather than one per send (internal).
 *
 * @module
 */

/**
 * Handles the failure of one send.
 *
 * @param error - why the send failed
 * @param a - the first detail given to {@link SendWatch.watch} with the send
 * @param b - the second detail
 */
export type SendFailure<A, B> = (error: unknown, a: A, b: B) => void;

/** What a watch holds while no promise is watched (never written to). */
const NO_DETAILS: readonly unknown[] = Object.freeze([]);

/**
 * Watches sends for failure. A transport that writes the messages of one turn together hands
 * each of them the same promise (stdio's batch, a WebSocket waiting for its buffer to drain); a
 * handler per send would cost a closure, a reaction and a promise for every message, and a
 * microtask each when the promise settles. Here the sends that share a promise share one
 * handler: when it rejects, each failed send is handled with its own details, in the order they
 * were sent. Cost per send: a comparison and two array writes.
 */
export class SendWatch<A, B> {
  readonly #onFail: SendFailure<A, B>;
  /** The promise of the sends watched last, until it settles. */
  #promise: Promise<void> | undefined = undefined;
  /** The details of the sends sharing `#promise`, flat: a, b, a, b, … */
  #details: unknown[] = NO_DETAILS as unknown[];

  /**
   * @param onFail - handles one failed send
   */
  constructor(onFail: SendFailure<A, B>) {
    this.#onFail = onFail;
  }

  /**
   * Handles the send's failure if `sent` rejects.
   *
   * @param sent - what the transport's `send()` returned (not core's `SENT`: that one never fails)
   * @param a - a detail of the send, handed to `onFail`
   * @param b - another detail of the send
   */
  watch(sent: Promise<void>, a: A, b: B): void {
    if (sent !== this.#promise) this.#start(sent);
    this.#details.push(a, b);
  }

  #start(sent: Promise<void>): void {
    const details: unknown[] = [];
    this.#promise = sent;
    this.#details = details;
    const settled = (): void => {
      if (this.#promise !== sent) return;
      this.#promise = undefined;
      this.#details = NO_DETAILS as unknown[];
    };
    sent.then(settled, (error: unknown) => {
      settled();
      for (let i = 0; i < details.length; i += 2) {
        this.#onFail(error, details[i] as A, details[i + 1] as B);
      }
    });
  }
}
