/**
 * Body-read deadlines for many requests at once, on one shared timer: arming and clearing a timer
 * for every request costs more than linking a list entry, and body timeouts are coarse by nature.
 *
 * @module
 */

/**
 * One request waiting for its body. The links and `due` belong to the {@link Deadlines} it is in:
 * the request only sets them to their initial values when it is made.
 */
export interface Deadline {
  /** Called once when it expires (and only if it was not removed before). */
  expire(): void;
  /** The sweep it expires at; -1 while it is in no list. */
  due: number;
  /** The deadline added before it, while both are in the list. */
  prev: Deadline | undefined;
  /** The deadline added after it, while both are in the list. */
  next: Deadline | undefined;
}

/**
 * A list of deadlines checked by one unref'd interval that runs only while the list is not empty.
 * All share one timeout, so they expire in the order they were added: a sweep stops at the first
 * that is not due, and no clock is read per deadline.
 */
export class Deadlines {
  #head: Deadline | undefined = undefined;
  #tail: Deadline | undefined = undefined;
  #size = 0;
  /** Sweeps run so far. */
  #sweeps = 0;
  /** Sweeps after its addition that a deadline expires at. */
  readonly #span: number;
  readonly #step: number;
  #interval: ReturnType<typeof setInterval> | undefined = undefined;

  /**
   * @param timeout - the timeout of every deadline, in milliseconds; they expire within one sweep
   *   step (`timeout / 4` rounded down, at least 10 ms) after it, two when the timeout is not a
   *   multiple of the step
   */
  constructor(timeout: number) {
    this.#step = Math.max(10, Math.floor(timeout / 4));
    // The first sweep after an addition comes within one step of it: `span` sweeps are at least
    // `timeout` after it.
    this.#span = Math.ceil(timeout / this.#step) + 1;
  }

  /** How many deadlines are watched now. */
  get size(): number {
    return this.#size;
  }

  /** Starts watching a deadline (one that is in no list). */
  add(deadline: Deadline): void {
    deadline.due = this.#sweeps + this.#span;
    deadline.prev = this.#tail;
    deadline.next = undefined;
    if (this.#tail === undefined) this.#head = deadline;
    else this.#tail.next = deadline;
    this.#tail = deadline;
    this.#size++;
    if (this.#interval === undefined) {
      this.#interval = setInterval(() => this.#sweep(), this.#step);
      this.#interval.unref?.();
    }
  }

  /** Stops watching a deadline; nothing when it is not watched. */
  delete(deadline: Deadline): void {
    if (deadline.due === -1) return;
    deadline.due = -1;
    const { prev, next } = deadline;
    if (prev === undefined) this.#head = next;
    else prev.next = next;
    if (next === undefined) this.#tail = prev;
    else next.prev = prev;
    deadline.prev = deadline.next = undefined;
    this.#size--;
  }

  #sweep(): void {
    const sweeps = ++this.#sweeps;
    let head = this.#head;
    while (head !== undefined && head.due <= sweeps) {
      this.delete(head);
      head.expire();
      head = this.#head;
    }
    if (this.#size === 0 && this.#interval !== undefined) {
      clearInterval(this.#interval);
      this.#interval = undefined;
    }
  }
}
