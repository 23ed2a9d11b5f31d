/**
 * How many bytes the tool reads from a target in one case: a target that answers without end (an
 * endless HTTP body, a huge WebSocket message, stdout without a line break) fails its case at the
 * bound instead of filling the tool's memory.
 *
 * @module
 */

/** The bytes read from the target in the current case, against a bound. */
export interface ReadBudget {
  /** The most bytes one case may read. */
  readonly limit: number;
  /** Bytes read in this case so far. */
  readonly used: number;
  /** Whether this case read more than `limit` bytes. */
  readonly exceeded: boolean;
  /**
   * Counts bytes read.
   *
   * @param bytes - how many
   * @returns `false` once the case has read more than `limit` bytes (the reader stops reading)
   */
  take(bytes: number): boolean;
  /** Marks the bound as passed (a message announced as larger than it, say). */
  exceed(): void;
  /** Starts the count of a new case. */
  reset(): void;
  /** What a case that passed the bound failed with. */
  describe(): string;
}

/**
 * Creates a budget of `limit` bytes a case.
 *
 * @param limit - the most bytes one case may read
 * @returns the budget, at zero
 */
export function createReadBudget(limit: number): ReadBudget {
  let used = 0;
  let exceeded = false;
  return {
    limit,
    get used() {
      return used;
    },
    get exceeded() {
      return exceeded;
    },
    take(bytes) {
      used += bytes;
      if (used > limit) exceeded = true;
      return !exceeded;
    },
    exceed() {
      exceeded = true;
    },
    reset() {
      used = 0;
      exceeded = false;
    },
    describe() {
      return `the target sent more than ${limit} bytes in this case (maxAnswerBytes); stopped reading and dropped the connection`;
    },
  };
}
