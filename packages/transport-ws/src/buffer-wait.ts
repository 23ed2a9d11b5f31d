/**
 * The send-buffer wait of the client transport: once a socket holds more than its high-water mark,
 * `send()` waits until the buffer has drained. (The server's socket transport keeps the same rule
 * in fields of its own class, so that an idle socket holds no closure for it.) No `node:` import,
 * so the client entry can use it.
 *
 * @module
 */
import { ConnectionClosedError } from '@jsonrpc-kit/core';

/** How one socket's buffer is watched, for {@link createBufferWait}. */
export interface BufferWaitOptions {
  /** Bytes the socket may hold before `send()` waits. */
  readonly highWaterMark: number;
  /** Bytes the socket holds now. */
  buffered(): number;
  /** The socket can still send; once it cannot, the wait rejects with `CONNECTION_CLOSED`. */
  isOpen(): boolean;
  /** Schedules `check` for when the buffer may have drained: an event if there is one, else a poll. */
  arm(check: () => void): void;
  /** Schedules the first check of a wait (the server arms after the turn's corked writes). */
  armFirst?(check: () => void): void;
  /** A wait began (the server stops reading the socket). */
  onPause?(): void;
  /** The buffer drained (the server reads the socket again). */
  onResume?(): void;
}

/** The wait of one socket. */
export interface BufferWait {
  /**
   * What a `send()` that just wrote returns: a resolved promise while the buffer is under the
   * mark and nobody waits, else the one shared wait.
   */
  afterSend(): Promise<void>;
  /**
   * Rejects the wait in progress, if any.
   *
   * @param error - why (the socket closed)
   */
  fail(error: Error): void;
}

/** The shared promise of a `send()` that did not have to wait. */
export const RESOLVED: Promise<void> = Promise.resolve();

/**
 * Makes the send-buffer wait of one socket: every `send()` over the mark shares one promise,
 * which settles when a check finds the buffer at or under the mark (or the socket closed).
 *
 * @param options - the socket's buffer, mark and how to schedule checks
 * @returns the wait
 */
export function createBufferWait(options: BufferWaitOptions): BufferWait {
  const { highWaterMark } = options;
  let waiting: { promise: Promise<void>; resolve(): void; reject(error: Error): void } | undefined;

  const check = (): void => {
    const current = waiting;
    if (current === undefined) return;
    if (!options.isOpen()) {
      waiting = undefined;
      // The socket went away; the close path reports it to the owner.
      current.reject(new ConnectionClosedError());
    } else if (options.buffered() > highWaterMark) {
      options.arm(check);
    } else {
      waiting = undefined;
      options.onResume?.();
      current.resolve();
    }
  };

  return {
    afterSend() {
      if (waiting !== undefined) return waiting.promise;
      if (options.buffered() <= highWaterMark) return RESOLVED;
      let resolve!: () => void;
      let reject!: (error: Error) => void;
      const promise = new Promise<void>((res, rej) => {
        resolve = res;
        reject = rej;
      });
      waiting = { promise, resolve, reject };
      options.onPause?.();
      (options.armFirst ?? options.arm)(check);
      return promise;
    },
    fail(error) {
      const current = waiting;
      waiting = undefined;
      current?.reject(error);
    },
  };
}
