/**
 * The messages a duplex target sent and the tool has not taken yet, in arrival order.
 *
 * @module
 */

/** One message from the target. */
export interface Received {
  /** The message text (UTF-8). */
  readonly text: string;
  /** Whether it came as a binary WebSocket frame. */
  readonly binary: boolean;
}

/** A queue of received messages that a case takes from one at a time, with a deadline. */
export interface Inbox {
  push(message: Received): void;
  /** Marks the end of input: waiting takers get `undefined`, and so do later ones once empty. */
  end(): void;
  /** Whether the input has ended. */
  readonly ended: boolean;
  /** Messages not taken yet. */
  readonly size: number;
  /** The next message, or `undefined` after `timeoutMs` or at the end of input. */
  next(timeoutMs: number): Promise<Received | undefined>;
  /** Takes every message that is already there. */
  drain(): Received[];
}

/**
 * Creates an empty inbox.
 *
 * @returns the inbox
 */
export function createInbox(): Inbox {
  const messages: Received[] = [];
  let waiter: ((message: Received | undefined) => void) | undefined;
  let ended = false;
  return {
    push(message) {
      if (waiter) {
        const wake = waiter;
        waiter = undefined;
        wake(message);
      } else messages.push(message);
    },
    end() {
      ended = true;
      const wake = waiter;
      waiter = undefined;
      wake?.(undefined);
    },
    get ended() {
      return ended;
    },
    get size() {
      return messages.length;
    },
    next(timeoutMs) {
      const message = messages.shift();
      if (message !== undefined || ended) return Promise.resolve(message);
      return new Promise((resolve) => {
        const timer = setTimeout(() => {
          waiter = undefined;
          resolve(undefined);
        }, timeoutMs);
        waiter = (m) => {
          clearTimeout(timer);
          resolve(m);
        };
      });
    },
    drain() {
      return messages.splice(0);
    },
  };
}
