/**
 * A promise settled from outside: what a sender waits on until a batch is written or a socket
 * drains.
 *
 * @module
 */

/** A promise and its settlers (a held batch's notifications wait on its send; a transport's senders on a drain). */
export interface Deferred {
  /** The promise. */
  readonly promise: Promise<void>;
  /** Resolves it (with another promise: when that one settles). */
  resolve(value?: PromiseLike<void>): void;
  /** Rejects it. */
  reject(error: unknown): void;
}

/**
 * Makes a deferred promise.
 *
 * @returns the promise and its settlers
 * @example
 * ```ts
 * const drained = deferred();
 * socket.once('drain', drained.resolve);
 * await drained.promise;
 * ```
 */
export function deferred(): Deferred {
  let resolve!: (value?: PromiseLike<void>) => void;
  let reject!: (error: unknown) => void;
  const promise = new Promise<void>((res, rej) => {
    resolve = res;
    reject = rej;
  });
  return { promise, resolve, reject };
}
