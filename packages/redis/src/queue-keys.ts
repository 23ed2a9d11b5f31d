/**
 * The Redis keys and stream fields of the queue transport, shared by the caller's side and the
 * worker's side so that they cannot drift.
 *
 * @module
 */
import type { OptionNames } from '@jsonrpc-kit/core/engine';
import type { RedisConnectionOptions } from './connection.js';

/** What both sides of the queue transport are given. */
export interface RedisQueueOptions extends RedisConnectionOptions {
  /** The request stream's key, the same for the callers and the workers. */
  readonly queue: string;
  /**
   * How long one blocking read waits before it starts again, in milliseconds; bounds how long
   * `close()` can take.
   *
   * @default 1000
   */
  readonly blockMs?: number | undefined;
}

/** The names of {@link RedisQueueOptions} beside the connection's. */
export const QUEUE_OPTION_NAMES: OptionNames<
  Omit<RedisQueueOptions, keyof RedisConnectionOptions>
> = {
  queue: true,
  blockMs: true,
};

/** Stream field: the caller's correlation token of one entry. */
export const FIELD_CORRELATION = 'c';
/** Stream field: the key of the stream the answer goes to. */
export const FIELD_REPLY_TO = 'r';
/** Stream field: the JSON-RPC text. */
export const FIELD_BODY = 'b';
/** Dead-letter stream field: the id the request had on the request stream. */
export const FIELD_ENTRY_ID = 'i';
/** Dead-letter stream field: how many times the request was handed out. */
export const FIELD_DELIVERIES = 'n';

/**
 * How long a caller's reply stream lives after its last answer, in seconds: a caller that went
 * away without closing leaves nothing behind for longer. @default 3600
 */
export const DEFAULT_REPLY_TTL_SECONDS = 3600;

/**
 * Cap on the requests in the stream not yet done (waiting for a worker or being served): beyond
 * it a caller refuses new requests at once. Nothing is trimmed. @default 100000
 */
export const DEFAULT_MAX_BACKLOG = 100_000;

/**
 * The dead-letter stream of a queue: where a worker parks a request that was handed out more
 * than `maxDeliveries` times (every worker that took it stopped before answering).
 *
 * @param queue - the request stream's key
 * @returns the key, `<queue>:dead`
 * @example
 * ```ts
 * import { deadLetterKey } from '@jsonrpc-kit/redis';
 *
 * console.log(deadLetterKey('calc')); // calc:dead
 * ```
 */
export function deadLetterKey(queue: string): string {
  return `${queue}:dead`;
}

/**
 * A unique id for a caller or a worker: a random UUID. `node:crypto` is taken from the built-in's
 * own object when called: an `import` of it makes its ES module, which reads every export, and
 * `webcrypto` then loads a module of its own as soon as the package is imported.
 *
 * @returns a new id
 */
export function uniqueId(): string {
  return process.getBuiltinModule('node:crypto').randomUUID();
}

/**
 * The reply stream of one caller.
 *
 * @param queue - the request stream's key
 * @param callerId - the caller's unique id
 * @returns the key
 */
export function replyKey(queue: string, callerId: string): string {
  return `${queue}:reply:${callerId}`;
}

/**
 * Whether a batch's text holds at least one request (a member with an `id`): only then does it
 * get an answer.
 *
 * @param text - the batch
 * @returns `true` when some member is a request; `false` for text that is not JSON
 */
export function batchExpectsAnswer(text: string): boolean {
  try {
    const members: unknown = JSON.parse(text);
    if (!Array.isArray(members) || members.length === 0) return true;
    return members.some(
      (m) => m === null || typeof m !== 'object' || 'id' in m || !('method' in m),
    );
  } catch {
    return true;
  }
}

/**
 * Whether JSON text is a batch (its first character that is not white space is `[`).
 *
 * @param text - the text
 * @returns `true` for a batch
 */
export function isBatchText(text: string): boolean {
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === 0x20 || c === 0x0a || c === 0x0d || c === 0x09) continue;
    return c === 0x5b;
  }
  return false;
}
