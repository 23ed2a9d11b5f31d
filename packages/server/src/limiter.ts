/**
 * A counting limiter with a bounded queue: how many calls run at once on one connection (or
 * across all `handle()` calls). Plain fields, so the dispatcher's fast path takes a slot without
 * a closure or a promise.
 *
 * @module
 */

/** The limiter's state. The dispatcher reads and updates it directly. */
export interface Limiter {
  /** Calls running now. */
  active: number;
  /** Most calls running at once. */
  readonly max: number;
  /** Most calls waiting. */
  readonly maxQueue: number;
  /** Waiting starts, oldest first. */
  readonly queue: Array<() => void>;
}

/**
 * Creates a limiter.
 *
 * @param max - most calls running at once (at least 1)
 * @param maxQueue - most calls waiting (at least 0)
 * @returns the limiter
 */
export function createLimiter(max: number, maxQueue: number): Limiter {
  return { active: 0, max: Math.max(1, max), maxQueue: Math.max(0, maxQueue), queue: [] };
}

/**
 * Frees a slot and starts waiting calls while slots are free (a waiting call that was aborted in
 * the meantime takes no slot).
 *
 * @param limiter - the limiter
 */
export function release(limiter: Limiter): void {
  limiter.active--;
  const queue = limiter.queue;
  while (queue.length > 0 && limiter.active < limiter.max) queue.shift()!();
}
