/**
 * The options of a queue caller and its shape: the bound on the backlog, how long a message waits
 * for its answer, how many wait while Redis is unreachable, and what the transport reports.
 *
 * @module
 */
import type { Transport } from '@jsonrpc-kit/core';
import type { OptionNames } from '@jsonrpc-kit/core/engine';
import { QUEUE_OPTION_NAMES, type RedisQueueOptions } from './queue-keys.js';

/** Options of {@link createRedisQueueClientTransport}. */
export interface RedisQueueClientTransportOptions extends RedisQueueOptions {
  /**
   * Cap on the requests in the stream not yet done (waiting for a worker or being served; a
   * worker deletes each request it is done with). While the stream holds this many, `send()`
   * rejects at once with a `TransportError` saying the queue is full; nothing is trimmed. The
   * length is counted (`XLEN`) at most every {@link QUEUE_RECOUNT_MS} and this caller's own
   * requests are added in between, so with several callers the stream may go a little past it.
   *
   * @default {@link DEFAULT_MAX_BACKLOG}
   */
  readonly maxBacklog?: number | undefined;
  /**
   * Milliseconds a message waits here for its answer: after that it is forgotten, and its answer,
   * should one still come, is dropped like a late one. So a request lost with Redis (trimmed from
   * the stream, or taken by a worker that never answers) leaves nothing behind, even from a call
   * that gave up without telling the transport (the client's safety-net timeout). Set it above the
   * longest a call of yours may wait. A message is forgotten between once and twice this after it
   * was sent.
   *
   * @default {@link DEFAULT_QUEUE_FORGET_AFTER} (10 minutes)
   */
  readonly forgetAfter?: number | undefined;
  /**
   * How many messages wait, in order, while Redis is unreachable; once it is back they go out,
   * but those whose caller gave up meanwhile (the call timed out or was aborted) are dropped.
   * Beyond this, `send()` rejects at once with a `TransportError`.
   *
   * @default {@link DEFAULT_MAX_QUEUED_SENDS}
   */
  readonly maxQueue?: number | undefined;
}

/** The names of {@link RedisQueueClientTransportOptions} beside the connection's. */
export const QUEUE_CLIENT_OPTION_NAMES: OptionNames<
  Omit<RedisQueueClientTransportOptions, keyof RedisQueueOptions>
> &
  typeof QUEUE_OPTION_NAMES = {
  ...QUEUE_OPTION_NAMES,
  maxBacklog: true,
  forgetAfter: true,
  maxQueue: true,
};

/** How many messages a caller holds while Redis is unreachable; more are refused. @default 1000 */
export const DEFAULT_MAX_QUEUED_SENDS = 1000;

/**
 * How often a caller counts the request stream's length (`XLEN`) while it sends, in
 * milliseconds. @default 100
 */
export const QUEUE_RECOUNT_MS = 100;

/**
 * How long the queue's caller side waits for an answer before it forgets the message.
 *
 * @default 600000 (10 minutes)
 */
export const DEFAULT_QUEUE_FORGET_AFTER = 600_000;

/** A {@link Transport} whose messages travel through a Redis queue. */
export interface RedisQueueClientTransport extends Transport {
  /** This caller's unique id; its answers come back on the stream `<queue>:reply:<callerId>`. */
  readonly callerId: string;
  /** Answers dropped because their request was already answered (at-least-once delivery). */
  readonly duplicates: number;
  /** Closes the transport (as `close()`). */
  [Symbol.asyncDispose](): Promise<void>;
}
