/**
 * Cross-process fan-out over Redis pub/sub: a publish in one process reaches the subscribers of
 * every process.
 *
 * @module
 */
import { ConnectionClosedError, TransportError } from '@jsonrpc-kit/core';
import { asyncDisposeSymbol, FifoQueue, type OptionNames } from '@jsonrpc-kit/core/engine';
import {
  checkRedisOptions,
  closeConnection,
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
  readonly maxQueue?: number | undefined;
  /** Called when a subscriber throws or a message is not JSON; delivery to the others goes on. */
  readonly onError?: ((error: Error) => void) | undefined;
  /**
   * Sharded pub/sub (`SPUBLISH`/`SSUBSCRIBE`, Redis 7 and later): each channel lives on one shard
   * of a Redis Cluster instead of being broadcast to every node, so fan-out scales with the
   * cluster. On a single Redis it behaves as plain pub/sub. Publishers and subscribers of a topic
   * must agree: a sharded publish reaches only sharded subscribers.
   *
   * @default false
   */
  readonly sharded?: boolean | undefined;
}

/** The names of {@link RedisFanoutOptions} beside the connection's. */
const FANOUT_OPTION_NAMES: OptionNames<Omit<RedisFanoutOptions, keyof RedisConnectionOptions>> = {
  channelPrefix: true,
  maxQueue: true,
  onError: true,
  sharded: true,
};

/** The Redis version sharded pub/sub needs. */
const SHARDED_SINCE = 7;

/**
 * Receives the items published to a topic, in any process.
 *
 * @param item - the item, parsed once per process and shared by every subscriber of the process
 * @param text - the item's JSON text, as published
 */
export type FanoutListener = (item: unknown, text: string) => void;

/**
 * Receives the JSON text of each item published to a topic, unparsed.
 *
 * @param text - the item's JSON text, as published
 */
export type FanoutTextListener = (text: string) => void;

/** A cross-process publish/subscribe hub over Redis; see {@link createRedisFanout}. */
export interface RedisFanout {
  /**
   * Publishes `item` to every subscriber of `topic` in every process (this one included).
   * Serialized once.
   *
   * @param topic - the topic
   * @param item - any JSON-serializable value
   * @returns resolves once Redis took the publish (after an outage: once it is back)
   * @throws TransportError when Redis is unreachable and `maxQueue` publishes already
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
  /**
   * Publishes an item already serialized: `text` goes out as it is (it must be JSON text). This
   * is what the server's subscriptions call, so an item is serialized once in all.
   *
   * @param topic - the topic
   * @param text - the item's JSON text
   * @returns resolves once Redis took the publish (after an outage: once it is back)
   * @throws TransportError and ConnectionClosedError as {@link RedisFanout.publish}
   */
  publishText(topic: string, text: string): Promise<void>;
  /**
   * Subscribes to the JSON text of a topic's items, not parsed (the server's subscriptions put
   * it into each notification as it is). Otherwise as {@link RedisFanout.subscribe}.
   *
   * @param topic - the topic
   * @param listener - receives each item's text
   * @returns resolves, once Redis confirmed the subscription, to a function that unsubscribes
   * @throws ConnectionClosedError after `close()`
   */
  subscribeText(topic: string, listener: FanoutTextListener): Promise<() => Promise<void>>;
  /** Whether it uses sharded pub/sub ({@link RedisFanoutOptions.sharded}). */
  readonly sharded: boolean;
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

interface Listeners {
  readonly items: Set<FanoutListener>;
  readonly texts: Set<FanoutTextListener>;
}

/**
 * Refuses sharded pub/sub on a Redis older than 7, closing both connections.
 *
 * @param pub - the publisher connection
 * @param sub - the subscriber connection
 * @throws TransportError when the server is older
 */
async function requireShardedPubSub(pub: RedisConnection, sub: RedisConnection): Promise<void> {
  const info = String(await pub.sendCommand(['INFO', 'server']));
  const version = /redis_version:(\d+)/.exec(info)?.[1];
  if (version !== undefined && Number(version) >= SHARDED_SINCE) return;
  dropConnection(pub);
  dropConnection(sub);
  throw new TransportError(
    `Sharded pub/sub needs Redis ${SHARDED_SINCE} or later; this one is ${version ?? 'unknown'}`,
  );
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
 * subscriptions are renewed and publishes made meanwhile wait (up to `maxQueue`).
 * Pub/sub is at most once: an item published while a process is disconnected does not reach it.
 *
 * @param options - where Redis is, the channel prefix, the outage queue's bound
 * @returns the fan-out, connected
 * @throws TransportError when Redis cannot be reached at first, or when `sharded` is asked of a
 *   Redis older than 7
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
  checkRedisOptions('createRedisFanout', options, FANOUT_OPTION_NAMES);
  const prefix = options.channelPrefix ?? DEFAULT_CHANNEL_PREFIX;
  const maxQueued = options.maxQueue ?? DEFAULT_MAX_QUEUED_PUBLISHES;
  const onError = options.onError;
  const sharded = options.sharded === true;
  let publisher: RedisConnection | undefined;
  let subscriber: RedisConnection | undefined;
  try {
    publisher = await openConnection(options, { disableOfflineQueue: true });
    subscriber = await openConnection(options);
  } catch (error) {
    dropConnection(publisher);
    dropConnection(subscriber);
    throw new TransportError('Cannot reach Redis for fan-out', { cause: error });
  }
  const pub = publisher;
  const sub = subscriber;
  if (sharded) await requireShardedPubSub(pub, sub);
  const send = (channel: string, text: string): Promise<unknown> =>
    sharded ? pub.sPublish(channel, text) : pub.publish(channel, text);
  const listeners = new Map<string, Listeners>();
  const queue = new FifoQueue<QueuedPublish>();
  let closed = false;
  let flushing = false;

  /**
   * Whether publishes go out now: both connections are up. The subscriber is ready only once it
   * has made its subscriptions again (`@redis/client` renews them before it says so), so what
   * was held during an outage reaches this process's own subscribers too.
   */
  const up = (): boolean => pub.isReady && sub.isReady;

  const flush = async (): Promise<void> => {
    if (flushing) return;
    flushing = true;
    try {
      while (queue.length > 0 && up() && !closed) {
        const next = queue.at(0)!;
        try {
          await send(next.channel, next.text);
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
  sub.on('ready', () => void flush());

  const deliver = (topic: string, text: string): void => {
    const set = listeners.get(topic);
    if (set === undefined) return;
    for (const listener of set.texts) {
      try {
        listener(text);
      } catch (error) {
        onError?.(error as Error);
      }
    }
    if (set.items.size === 0) return;
    let item: unknown;
    try {
      item = JSON.parse(text);
    } catch (error) {
      onError?.(error as Error);
      return;
    }
    for (const listener of set.items) {
      try {
        listener(item, text);
      } catch (error) {
        onError?.(error as Error);
      }
    }
  };

  const publishText = async (topic: string, text: string): Promise<void> => {
    if (closed) throw new ConnectionClosedError();
    const channel = prefix + topic;
    if (up() && queue.length === 0) {
      try {
        await send(channel, text);
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
  };

  /** Adds a listener of one kind; the Redis subscription is made for the topic's first. */
  const listen = async <L>(
    topic: string,
    kind: 'items' | 'texts',
    listener: L,
  ): Promise<() => Promise<void>> => {
    if (closed) throw new ConnectionClosedError();
    let set = listeners.get(topic);
    if (set === undefined) {
      set = { items: new Set(), texts: new Set() };
      listeners.set(topic, set);
      const onMessage = (text: string): void => deliver(topic, text);
      await (sharded
        ? sub.sSubscribe(prefix + topic, onMessage)
        : sub.subscribe(prefix + topic, onMessage));
    }
    (set[kind] as Set<L>).add(listener);
    let done = false;
    return async () => {
      if (done || closed) return;
      done = true;
      const current = listeners.get(topic);
      if (current === undefined || !(current[kind] as Set<L>).delete(listener)) return;
      if (current.items.size + current.texts.size > 0) return;
      listeners.delete(topic);
      const channel = prefix + topic;
      await (sharded ? sub.sUnsubscribe(channel) : sub.unsubscribe(channel)).catch((error: Error) =>
        onError?.(error),
      );
    };
  };

  const close = async (): Promise<void> => {
    if (closed) return;
    closed = true;
    for (let waiting = queue.shift(); waiting !== undefined; waiting = queue.shift()) {
      waiting.reject(new ConnectionClosedError());
    }
    listeners.clear();
    await Promise.all([closeConnection(pub), closeConnection(sub)]);
  };

  return {
    get queued() {
      return queue.length;
    },
    get sharded() {
      return sharded;
    },
    publish(topic, item) {
      const text = JSON.stringify(item);
      if (text === undefined) {
        return Promise.reject(new TypeError(`Cannot serialize an item for topic "${topic}"`));
      }
      return publishText(topic, text);
    },
    publishText,
    subscribe: (topic, listener) => listen(topic, 'items', listener),
    subscribeText: (topic, listener) => listen(topic, 'texts', listener),
    close,
    [asyncDisposeSymbol]: () => close(),
  } as RedisFanout;
}
