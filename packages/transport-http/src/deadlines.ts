/**
 * Body-read deadlines for many requests at once, on one shared timer: arming and clearing a timer
 * for every request costs more than a set insertion, and body timeouts are coarse by nature.
 *
 * @module
 */

/** One request waiting for its body. */
export interface Deadline {
  /** When it expires, in `Date.now()` milliseconds. */
  readonly at: number;
  /** Called once when it expires (and only if it was not removed before). */
  readonly expire: () => void;
}

/** A set of deadlines checked by one unref'd interval that runs only while the set is not empty. */
export interface Deadlines {
  /** Starts watching a deadline. */
  add(deadline: Deadline): void;
  /** Stops watching a deadline. */
  delete(deadline: Deadline): void;
  /** How many deadlines are watched now. */
  readonly size: number;
}

/**
 * Creates a deadline set whose expiries fire within `timeout / 4` (at least 10 ms) of their
 * time.
 *
 * @param timeout - the timeout the deadlines are made with, in milliseconds
 * @returns the set
 */
export function createDeadlines(timeout: number): Deadlines {
  const entries = new Set<Deadline>();
  const step = Math.max(10, Math.floor(timeout / 4));
  let interval: ReturnType<typeof setInterval> | undefined;
  const sweep = (): void => {
    const now = Date.now();
    for (const entry of entries) {
      if (entry.at <= now) {
        entries.delete(entry);
        entry.expire();
      }
    }
    if (entries.size === 0 && interval !== undefined) {
      clearInterval(interval);
      interval = undefined;
    }
  };
  return {
    add(deadline) {
      entries.add(deadline);
      if (interval === undefined) {
        interval = setInterval(sweep, step);
        interval.unref?.();
      }
    },
    delete(deadline) {
      entries.delete(deadline);
    },
    get size() {
      return entries.size;
    },
  };
}
