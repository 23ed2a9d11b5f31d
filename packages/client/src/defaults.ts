/**
 * The client's defaults.
 *
 * @module
 */

/**
 * Default per-call timeout in milliseconds: 30 seconds, as the kotlinx-rpc JSON-RPC proposal
 * (viem waits 10 s, the MCP SDK 60 s). A call never waits forever unless asked to: `callTimeout: 0`
 * or `Infinity` (per client; `timeout: 0` per call) turns the deadline off.
 *
 * @default 30000
 */
export const DEFAULT_CALL_TIMEOUT = 30_000;

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
