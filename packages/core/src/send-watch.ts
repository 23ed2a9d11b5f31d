/**
 * Failure handling of sends with one handler per promise rather than one per send (internal).
 *
 * @module
 */

/**
 * Handles the failure of one send.
 *
 * @param error - why the send failed
 * @param a - the first detail given with the send
 * @param b - the second detail
 */
export type SendFailure<A, B> = (error: unknown, a: A, b: B) => void;

/**
 * What a watch holds while it watches nothing. Frozen: it is never written to, unless a transport
 * returned something that is not a promise, and then the write throws as `.then()` would have.
 */
const NOTHING: unknown[] = Object.freeze([]) as unknown as unknown[];

/**
 * Watches one send for failure: call it with what the transport's `send()` returned (not core's
 * `SENT`, which never fails) and two details of the send, handed to `onFail` if it fails.
 */
export type SendWatch<A, B> = (sent: Promise<void>, a: A, b: B) => void;

/**
 * Makes a watch of sends. A transport that writes the messages of one turn together hands each of
 * them the same promise (stdio's batch, a WebSocket waiting for its buffer to drain); a handler
 * per send would cost a closure, a reaction and a promise for every message, and a microtask each
 * when the promise settles. Here the sends that share a promise share one handler: when it
 * rejects, each of them is handled with its own details, in the order they were sent. Cost per
 * send: a comparison and two array writes.
 *
 * @param onFail - handles one failed send
 * @returns the watch
 */
export function watchSends<A, B>(onFail: SendFailure<A, B>): SendWatch<A, B> {
  /** The promise of the sends watched last, until it settles, and their details: a, b, a, b, … */
  let current: Promise<void> | undefined;
  let details = NOTHING;
  return (sent, a, b) => {
    if (sent !== current) {
      const shared: unknown[] = [];
      const settled = (): void => {
        if (current !== sent) return;
        current = undefined;
        details = NOTHING;
      };
      current = sent;
      details = shared;
      sent.then(settled, (error: unknown) => {
        settled();
        for (let i = 0; i < shared.length; i += 2)
          onFail(error, shared[i] as A, shared[i + 1] as B);
      });
    }
    details.push(a, b);
  };
}
