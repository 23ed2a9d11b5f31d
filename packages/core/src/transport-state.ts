/**
 * The invariants of the {@link Transport} contract, kept in one place for every transport: what
 * arrives before `start()` is buffered, `start()` works once, `onClose` fires exactly once and
 * after every message delivered before it, an owner's throwing hook never breaks the transport.
 *
 * @module
 */
import { toError } from './to-error.js';
import type { Transport, TransportHandler } from './transport.js';

/**
 * The owner-facing half of a transport, from {@link createTransportState}: a transport hands it
 * what it receives and calls `close()` when its connection ends; the state delivers both to the
 * owner in order and exactly once.
 */
export interface TransportState {
  /** The owner passed to `start()`; `undefined` before. */
  readonly handler: TransportHandler | undefined;
  /** `start()` was called. */
  readonly started: boolean;
  /** `close()` was called: nothing more is delivered after what was already received. */
  readonly closed: boolean;
  /**
   * The body of {@link Transport.start}: records the owner and delivers what was buffered (in a
   * microtask, in arrival order), then a close that happened before. With nothing buffered,
   * later messages go straight to the owner.
   *
   * @param handler - the owner
   * @returns a promise that resolves at once; it rejects when the transport was started already
   */
  start(handler: TransportHandler): Promise<void>;
  /**
   * Hands one inbound message to the owner's `onMessage`, or buffers it until `start()`. Dropped
   * after `close()`. An exception from `onMessage` goes to `onError`.
   *
   * @param message - the message or batch, as text
   */
  deliver(message: string): void;
  /**
   * Reports a non-fatal problem to the owner's `onError`, in order with the messages (buffered
   * before `start()`). Dropped after `close()`; an exception from `onError` is swallowed.
   *
   * @param error - the problem
   */
  report(error: Error): void;
  /**
   * Marks the transport closed and calls the owner's `onClose(error)` once: now when started
   * (after the buffered messages), else right after `start()` delivers them.
   *
   * @param error - why it closed, when it closed because of a failure
   * @returns `true` the first time, `false` when it was closed already
   */
  close(error?: Error): boolean;
}

const REJECT_SECOND_START = (): Promise<void> =>
  Promise.reject(new Error('Transport already started'));

/**
 * Makes the state that keeps a transport's contract with its owner: buffer before `start()`,
 * start once, `onClose` exactly once, no owner exception escaping into the transport. Each
 * transport keeps only its own I/O and calls `deliver`, `report` and `close` from it.
 *
 * @returns the state, not started and not closed
 * @example
 * ```ts
 * const state = createTransportState();
 * socket.on('message', (text) => state.deliver(text));
 * socket.on('close', () => state.close());
 * const transport: Transport = {
 *   start: (handler) => state.start(handler),
 *   send: async (message) => socket.send(message),
 *   close: async () => socket.close(),
 * };
 * ```
 */
export function createTransportState(): TransportState {
  return new ContractState();
}

/**
 * The state behind {@link createTransportState}. A class rather than closures over a scope: a
 * server holds one transport per connection, and here the behaviour lives once on the prototype
 * while each transport holds five fields.
 */
class ContractState implements TransportState {
  #handler: TransportHandler | undefined;
  /** What waits for the owner: until `start()` and the microtask after it. */
  #pending: Array<string | Error> | undefined = [];
  #closed = false;
  #closeError: Error | undefined;
  #closeNotified = false;

  get handler(): TransportHandler | undefined {
    return this.#handler;
  }

  get started(): boolean {
    return this.#handler !== undefined;
  }

  get closed(): boolean {
    return this.#closed;
  }

  start(owner: TransportHandler): Promise<void> {
    if (this.#handler !== undefined) return REJECT_SECOND_START();
    this.#handler = owner;
    // Nothing waiting and still open: deliver directly from now on (no turn in between).
    if (this.#pending!.length === 0 && !this.#closed) this.#pending = undefined;
    else queueMicrotask(() => this.#flush());
    return Promise.resolve();
  }

  deliver(message: string): void {
    if (this.#closed) return;
    if (this.#pending !== undefined) this.#pending.push(message);
    else this.#hand(message);
  }

  report(error: Error): void {
    if (this.#closed) return;
    if (this.#pending !== undefined) this.#pending.push(error);
    else this.#report(error);
  }

  close(error?: Error): boolean {
    if (this.#closed) return false;
    this.#closed = true;
    this.#closeError = error;
    this.#notifyClose();
    return true;
  }

  #report(error: Error): void {
    try {
      this.#handler?.onError?.(error);
    } catch {
      // An owner's error hook must not break the transport.
    }
  }

  #hand(item: string | Error): void {
    if (typeof item !== 'string') {
      this.#report(item);
      return;
    }
    try {
      this.#handler!.onMessage(item);
    } catch (error) {
      this.#report(toError(error));
    }
  }

  #notifyClose(): void {
    const handler = this.#handler;
    if (!this.#closed || this.#closeNotified || handler === undefined) return;
    if (this.#pending !== undefined) return;
    this.#closeNotified = true;
    handler.onClose(this.#closeError);
  }

  #flush(): void {
    const queue = this.#pending!;
    this.#pending = undefined;
    for (let i = 0; i < queue.length; i++) this.#hand(queue[i]!);
    this.#notifyClose();
  }
}
