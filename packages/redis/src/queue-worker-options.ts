/**
 * The options of a queue worker and its shape: the consumer group, the takeover of silent
 * workers' requests, the bound on deliveries, and what the transport reports.
 *
 * @module
 */
import type { Transport } from '@jsonrpc-kit/core';
import type { OptionNames } from '@jsonrpc-kit/core/engine';
import { QUEUE_OPTION_NAMES, type RedisQueueOptions } from './queue-keys.js';

/**
 * How long a request may stay taken by a worker that shows no sign of life before another worker
 * takes it over, in milliseconds. @default 30000
 */
export const DEFAULT_VISIBILITY_TIMEOUT = 30_000;

/** How many requests one worker holds at once. @default 64 */
export const DEFAULT_WORKER_CONCURRENCY = 64;

/**
 * How many times a request is handed to a worker before it is given up on: answered with an
 * error, acknowledged and parked on the dead-letter stream. @default 5
 */
export const DEFAULT_MAX_DELIVERIES = 5;

/** Options of {@link createRedisQueueWorkerTransport}. */
export interface RedisQueueWorkerTransportOptions extends RedisQueueOptions {
  /**
   * The consumer group: the workers that share the queue, each request going to one of them.
   *
   * @default "workers"
   */
  readonly group?: string | undefined;
  /**
   * This worker's name in the group; unique per worker.
   *
   * @default a random UUID
   */
  readonly consumer?: string | undefined;
  /**
   * After how long without a sign of life a request taken by a worker is taken over by another
   * (`XAUTOCLAIM`), in milliseconds. A live worker renews its requests every third of it, so a
   * long handler is never taken over while its worker runs.
   *
   * @default {@link DEFAULT_VISIBILITY_TIMEOUT}
   */
  readonly visibilityTimeout?: number | undefined;
  /**
   * How many requests this worker holds at once; it takes no more until one is answered.
   *
   * @default {@link DEFAULT_WORKER_CONCURRENCY}
   */
  readonly concurrency?: number | undefined;
  /**
   * How long a caller's reply stream lives after its last answer, in seconds.
   *
   * @default {@link DEFAULT_REPLY_TTL_SECONDS}
   */
  readonly replyTtlSeconds?: number | undefined;
  /**
   * How many times a request may be handed to a worker (Redis counts each delivery: the first
   * read and every takeover). A request taken over once more than this (every worker that took
   * it stopped before answering, as a request that crashes its worker does) is not run again: its
   * caller gets an error (-32603, `data: { deliveries }`), and the request is acknowledged and
   * copied to the dead-letter stream `<queue>:dead` ({@link deadLetterKey}).
   *
   * @default {@link DEFAULT_MAX_DELIVERIES}
   */
  readonly maxDeliveries?: number | undefined;
}

/** The names of {@link RedisQueueWorkerTransportOptions} beside the connection's. */
export const QUEUE_WORKER_OPTION_NAMES: OptionNames<
  Omit<RedisQueueWorkerTransportOptions, keyof RedisQueueOptions>
> &
  typeof QUEUE_OPTION_NAMES = {
  ...QUEUE_OPTION_NAMES,
  group: true,
  consumer: true,
  visibilityTimeout: true,
  concurrency: true,
  replyTtlSeconds: true,
  maxDeliveries: true,
};

/** A {@link Transport} that serves one worker's share of a Redis queue. */
export interface RedisQueueWorkerTransport extends Transport {
  /** This worker's name in the consumer group. */
  readonly consumer: string;
  /** Requests this worker took over from a worker that stopped renewing them. */
  readonly claimed: number;
  /** Requests this worker gave up on after `maxDeliveries` and parked on the dead-letter stream. */
  readonly deadLettered: number;
  /** Closes the transport (as `close()`). */
  [Symbol.asyncDispose](): Promise<void>;
}
