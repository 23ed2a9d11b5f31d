/**
 * Cross-process fan-out over Redis pub/sub: a publish in one process reaches the subscribers of
 * every process.
 *
 * @module
 */
import { asyncDisposeSymbol, ConnectionClosedError, TransportError } from '@jsonrpc-kit/core';
import {
  dropConnection,
  openConnection,
  type RedisConnection,
  type RedisConnectionOptions,
} from './connection.js';

/** How many publishes wait while Redis is unreachable; more fail. @default 1000 */
export const DEFAULT_MAX_QUEUED_PUBLISHES = 1000;

/** The prefix of every channel of a fan-out. @default "jsonrpc-kit:" */
export const DEFAULT_CHANNEL_PREFIX = 'jsonrpc-kit:';

/** Options of {@link createRedisFanout}. */
export interface RedisFanoutOptions extends RedisConnectionOptions {
  /**
   * Prepended to each topic to make its Redis channel, so that several applications can share
   * one Redis.
   *
   * @default {@link DEFAULT_CHANNEL_PREFIX}
   */
  readonly channelPrefix?: string | undefined;
  /**
   * How many publishes wait, in order, while Redis is unreachable; once it is back they go out.
   * Beyond this, `publish()` rejects at once with a `TransportError`.
   *
   * @default {@link DEFAULT_MAX_QUEUED_PUBLISHES}
   */
  readonly maxQueuedPublishes?: number | undefined;
  /** Called when a subscriber throws or a message is not JSON; delivery to the others goes on. */
  readonly onError?: ((error: Error) => void) | undefined;
}

/**
 * Receives the items published to a topic, in any process.
 *
 * @param item - the item, parsed once per process and shared by every subscriber of the process
 * @param text - the item's JSON text, as published
 */
export type FanoutListener = (item: unknown, text: string) => void;

/** A cross-process publish/subscribe hub over Redis; see {@link createRedisFanout}. */
export interface RedisFanout {
  /**
   * Publishes `item` to every subscriber of `topic` in every process (this one included).
   * Serialized once.
   *
   * @param topic - the topic
   * @param item - any JSON-serializable value
   * @returns resolves once Redis took the publish (after an outage: once it is back)
   * @throws TransportError when Redis is unreachable and `maxQueuedPublishes` publishes already
   *   wait; ConnectionClosedError after `close()`; TypeError when `item` cannot be serialized
   */
  publish(topic: string, item: unknown): Promise<void>;
  /**
   * Subscribes to `topic`. The Redis subscription is made once per topic and process, and is
   * renewed by itself after Redis restarts. The same listener function subscribed twice to one
   * topic is called once per item (as with `addEventListener`).
   *
   * @param topic - the topic
   * @param listener - receives each item
   * @returns resolves, once Redis confirmed the subscription, to a function that unsubscribes
   * @throws ConnectionClosedError after `close()`
   */
  subscribe(topic: string, listener: FanoutListener): Promise<() => Promise<void>>;
  /** Publishes still waiting for Redis to come back. */
  readonly queued: number;
  /**
   * Closes both connections; waiting publishes reject with `ConnectionClosedError`. Idempotent.
   *
   * @returns resolves when closed
   */
  close(): Promise<void>;
  /** Closes the fan-out (as `close()`). */
  [Symbol.asyncDispose](): Promise<void>;
}

interface QueuedPublish {
  readonly channel: string;
  readonly text: string;
  readonly resolve: () => void;
  readonly reject: (error: Error) => void;
}

/**
 * Creates a cross-process fan-out on Redis pub/sub, with two connections of its own (a publisher,
 * and a subscriber as pub/sub requires). Both reconnect with backoff when Redis restarts; the
 * subscriptions are renewed and publishes made meanwhile wait (up to `maxQueuedPublishes`).
 * Pub/sub is at most once: an item published while a process is disconnected does not reach it.
 *
 * @param options - where Redis is, the channel prefix, the outage queue's bound
 * @returns the fan-out, connected
 * @throws TransportError when Redis cannot be reached at first
 * @example
 * ```ts
 * import { createRedisFanout } from '@jsonrpc-kit/redis';
 *
 * const fanout = await createRedisFanout({ url: 'redis://127.0.0.1:6379' });
 * await fanout.subscribe('news', (item) => console.log('got', item));
 * await fanout.publish('news', { title: 'hello' });
 * ```
 */
export async function createRedisFanout(options: RedisFanoutOptions = {}): Promise<RedisFanout> {
  const prefix = options.channelPrefix ?? DEFAULT_CHANNEL_PREFIX;
  const maxQueued = options.maxQueuedPublishes ?? DEFAULT_MAX_QUEUED_PUBLISHES;
  const onError = options.onError;
  let publisher: RedisConnection | undefined;
  let subscriber: RedisConnection | undefined;
  try {
    publisher = await openConnection(options, { disableOfflineQueue: true });
    subscriber = await openConnection(options);
  } catch (error) {
    dropConnection(publisher);
    throw new TransportError('Cannot reach Redis for fan-out', { cause: error });
  }
  const pub = publisher;
  const sub = subscriber;
  const listeners = new Map<string, Set<FanoutListener>>();
  const queue: QueuedPublish[] = [];
  let closed = false;
  let flushing = false;

  const flush = async (): Promise<void> => {
    if (flushing) return;
    flushing = true;
    try {
      while (queue.length > 0 && pub.isReady && !closed) {
        const next = queue[0]!;
        try {
          await pub.publish(next.channel, next.text);
        } catch {
          break; // down again: wait for the next 'ready'
        }
        queue.shift();
        next.resolve();
      }
    } finally {
      flushing = false;
    }
  };
  pub.on('ready', () => void flush());

  const deliver = (topic: string, text: string): void => {
    const set = listeners.get(topic);
    if (set === undefined) return;
    let item: unknown;
    try {
      item = JSON.parse(text);
    } catch (error) {
      onError?.(error as Error);
      return;
    }
    for (const listener of set) {
      try {
        listener(item, text);
      } catch (error) {
        onError?.(error as Error);
      }
    }
  };

  const close = async (): Promise<void> => {
    if (closed) return;
    closed = true;
    for (const waiting of queue.splice(0)) waiting.reject(new ConnectionClosedError());
    listeners.clear();
    await Promise.all([
      pub.close().catch(() => dropConnection(pub)),
      sub.close().catch(() => dropConnection(sub)),
    ]);
  };

  return {
    get queued() {
      return queue.length;
    },
    async publish(topic, item) {
      if (closed) throw new ConnectionClosedError();
      const text = JSON.stringify(item);
      if (text === undefined) throw new TypeError(`Cannot serialize an item for topic "${topic}"`);
      const channel = prefix + topic;
      if (pub.isReady && queue.length === 0) {
        try {
          await pub.publish(channel, text);
          return;
        } catch (error) {
          if (pub.isReady) throw new TransportError('Redis refused a publish', { cause: error });
        }
      }
      if (queue.length >= maxQueued) {
        throw new TransportError(
          `Redis is unreachable and ${maxQueued} publishes already wait; publish to "${topic}" dropped`,
        );
      }
      return new Promise<void>((resolve, reject) => {
        queue.push({ channel, text, resolve, reject });
        void flush();
      });
    },
    async subscribe(topic, listener) {
      if (closed) throw new ConnectionClosedError();
      let set = listeners.get(topic);
      if (set === undefined) {
        set = new Set();
        listeners.set(topic, set);
        await sub.subscribe(prefix + topic, (text: string) => deliver(topic, text));
      }
      set.add(listener);
      let done = false;
      return async () => {
        if (done || closed) return;
        done = true;
        const current = listeners.get(topic);
        if (current === undefined || !current.delete(listener) || current.size > 0) return;
        listeners.delete(topic);
        await sub.unsubscribe(prefix + topic).catch((error: Error) => onError?.(error));
      };
    },
    close,
    [asyncDisposeSymbol]: () => close(),
  } as RedisFanout;
}
