/**
 * Waiting.
 *
 * @module
 */

/**
 * Resolves after `ms` milliseconds.
 *
 * @param ms - how long
 * @returns the wait
 */
export const pause = (ms: number): Promise<void> =>
  new Promise((resolve) => setTimeout(resolve, ms));
