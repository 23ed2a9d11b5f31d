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
  let handler: TransportHandler | undefined;
  /** What waits for the owner: until `start()` and the microtask after it. */
  let pending: Array<string | Error> | undefined = [];
  let closed = false;
  let closeError: Error | undefined;
  let closeNotified = false;

  const report = (error: Error): void => {
    try {
      handler?.onError?.(error);
    } catch {
      // An owner's error hook must not break the transport.
    }
  };

  const hand = (item: string | Error): void => {
    if (typeof item !== 'string') {
      report(item);
      return;
    }
    try {
      handler!.onMessage(item);
    } catch (error) {
      report(toError(error));
    }
  };

  const notifyClose = (): void => {
    if (!closed || closeNotified || handler === undefined || pending !== undefined) return;
    closeNotified = true;
    handler.onClose(closeError);
  };

  const flush = (): void => {
    const queue = pending!;
    pending = undefined;
    for (let i = 0; i < queue.length; i++) hand(queue[i]!);
    notifyClose();
  };

  let start = (owner: TransportHandler): Promise<void> => {
    start = REJECT_SECOND_START;
    handler = owner;
    // Nothing waiting and still open: deliver directly from now on (no turn in between).
    if (pending!.length === 0 && !closed) pending = undefined;
    else queueMicrotask(flush);
    return Promise.resolve();
  };

  return {
    get handler() {
      return handler;
    },
    get started() {
      return handler !== undefined;
    },
    get closed() {
      return closed;
    },
    start: (owner) => start(owner),
    deliver(message) {
      if (closed) return;
      if (pending !== undefined) pending.push(message);
      else hand(message);
    },
    report(error) {
      if (closed) return;
      if (pending !== undefined) pending.push(error);
      else report(error);
    },
    close(error) {
      if (closed) return false;
      closed = true;
      closeError = error;
      notifyClose();
      return true;
    },
  };
}
