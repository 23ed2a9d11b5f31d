/**
 * The client's defaults.
 *
 * @module
 */

/**
 * Default per-call timeout in milliseconds: `0` waits forever (the transport's close or
 * disconnect still fails every waiting call).
 *
 * @default 0
 */
export const DEFAULT_TIMEOUT = 0;

/**
 * Default wait of auto-batching in milliseconds: `0` collects the calls of the same tick.
 *
 * @default 0
 */
export const DEFAULT_BATCH_WAIT = 0;

/**
 * Default maximum number of messages in one auto-batch; a full batch is sent at once. Matches
 * the server's default `maxBatchSize`.
 *
 * @default 100
 */
export const DEFAULT_BATCH_MAX_SIZE = 100;

/**
 * How many ids of calls that gave up (timeout, abort) the client remembers, to drop their late
 * answers silently instead of reporting them as unknown.
 *
 * @default 1024
 */
export const DEFAULT_LATE_ANSWER_MEMORY = 1024;
