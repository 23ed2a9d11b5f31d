/// <reference lib="esnext.disposable" preserve="true" />
/**
 * The public types of `createSubscriptions()`: the producer and its context, the options, the
 * `Subscriptions` face, and the default queue bound.
 *
 * @module
 */
import type {
  Contract,
  ItemInput,
  ParamsOutput,
  Peer,
  StandardSchemaV1,
  SubscriptionDialect,
  SubscriptionNames,
  TransportContext,
} from '@jsonrpc-kit/core';
import type { SubscriptionFanout } from './subscription-fanout.js';
import type { OverflowPolicy } from './subscription-outbox.js';

export type { OverflowPolicy } from './subscription-outbox.js';

/**
 * Most items one subscription holds while its connection cannot take more.
 * @default 1024
 * @example
 * ```ts
 * createSubscriptions(server, { maxQueue: DEFAULT_SUBSCRIPTION_QUEUE / 4 });
 * ```
 */
export const DEFAULT_SUBSCRIPTION_QUEUE: number = 1024;

/**
 * Most subscriptions one connection may hold at once; a subscribe beyond it is refused with
 * -32002 (`ServerBusyError`).
 * @default 1024
 * @example
 * ```ts
 * createSubscriptions(server, { maxSubscriptionsPerConnection: DEFAULT_SUBSCRIPTIONS_PER_CONNECTION / 8 });
 * ```
 */
export const DEFAULT_SUBSCRIPTIONS_PER_CONNECTION: number = 1024;

/**
 * Most bytes of items one connection's subscriptions hold together: half of it for items handed
 * to the transport whose sends have not resolved (it is over its high-water mark), half for items
 * waiting in their queues. Sizes count a text's UTF-16 units (its bytes for plain ASCII).
 * @default 8 MiB
 * @example
 * ```ts
 * createSubscriptions(server, { maxQueueBytesPerConnection: DEFAULT_QUEUE_BYTES_PER_CONNECTION * 4 });
 * ```
 */
export const DEFAULT_QUEUE_BYTES_PER_CONNECTION: number = 8 * 1024 * 1024;

/** What a producer gets besides the params. */
export interface SubscriptionContext<I = unknown> {
  /** Aborted on unsubscribe, connection close, server close, or `subscriptions.close()`. */
  readonly signal: AbortSignal;
  /** The subscription id the subscriber was given. */
  readonly id: string;
  /** The subscription's name. */
  readonly name: string;
  /** The subscribing connection. */
  readonly peer: Peer;
  /** Facts about its transport. */
  readonly transport: TransportContext;
  /**
   * Pushes one item to this subscriber (emitter style).
   *
   * @param item - the item
   * @throws TypeError when item validation is on and the item breaks the item schema
   */
  emit(item: I): void;
}

/**
 * Produces a subscription's items: return an async iterable (its items are pushed until it ends
 * or the subscription is cancelled), or push with `ctx.emit` and return a cleanup function (or
 * nothing and watch `ctx.signal`). Throw a `JsonRpcError` to refuse the subscription.
 *
 * @param params - the params, validated
 * @param ctx - signal, id, peer and `emit`
 * @returns an async iterable, a cleanup function, or nothing
 * @example
 * ```ts
 * const ticks: Producer<[], number> = (_params, ctx) => {
 *   let n = 0;
 *   const timer = setInterval(() => ctx.emit(n++), 100);
 *   return () => clearInterval(timer);
 * };
 * ```
 */
export type Producer<P = any, I = unknown> = (
  params: P,
  ctx: SubscriptionContext<I>,
  // biome-ignore lint/suspicious/noConfusingVoidType: an emitter-style producer may return nothing
) => AsyncIterable<I> | (() => void) | void | Promise<(() => void) | void>;

/** Options of {@link Subscriptions.subscription}. */
export interface ProducerOptions {
  /** Schema of the params (issues refuse the subscription with -32602). */
  readonly params?: StandardSchemaV1 | undefined;
  /** Schema of each item (checked when item validation is on). */
  readonly item?: StandardSchemaV1 | undefined;
  /** Description for OpenRPC. */
  readonly description?: string | undefined;
}

/** Options of {@link createSubscriptions}. */
export interface SubscriptionsOptions {
  /**
   * The wire shape.
   * @default genericSubscriptions (core)
   */
  readonly dialect?: SubscriptionDialect;
  /**
   * Most items one subscription holds while its connection's transport is over its high-water
   * mark; then {@link SubscriptionsOptions.overflow} applies.
   * @default DEFAULT_SUBSCRIPTION_QUEUE (1024)
   */
  readonly maxQueue?: number;
  /**
   * Most live subscriptions one connection may hold at once (one whose producer is still
   * starting counts). A subscribe beyond it is refused with -32002 (`ServerBusyError`), its message
   * naming the limit; the connection and its other subscriptions go on.
   * @default DEFAULT_SUBSCRIPTIONS_PER_CONNECTION (1024)
   */
  readonly maxSubscriptionsPerConnection?: number;
  /**
   * Most bytes of items all subscriptions of one connection hold together, however many they
   * are: once half of it sits in the transport's hands (sends that have not resolved: the
   * transport is over its high-water mark), no subscription of that connection hands it more;
   * items wait in their queues, up to the other half, and past that each subscription's
   * {@link SubscriptionsOptions.overflow} applies (`"drop-oldest"` drops that subscription's own
   * oldest items; when the others' items fill the budget, the new item is dropped). Sizes count a
   * text's UTF-16 units (its bytes for plain ASCII).
   * @default DEFAULT_QUEUE_BYTES_PER_CONNECTION (8 MiB)
   */
  readonly maxQueueBytesPerConnection?: number;
  /**
   * What a full subscription does: `"drop-oldest"`, `"drop-newest"`, or `"close"` (the
   * subscription ends, `onError` hears a `SubscriptionError` with code `SUBSCRIPTION_OVERFLOW`,
   * and a dialect with an `end` notification tells the subscriber).
   * @default "drop-oldest"
   */
  readonly overflow?: OverflowPolicy;
  /**
   * Whether items are checked against the item schema (synchronous schemas only).
   * @default true unless `NODE_ENV` is `"production"`
   */
  readonly validateItems?: boolean;
  /**
   * Told when a producer fails or a subscription is closed by the overflow policy.
   *
   * @param error - what failed
   * @param info - the subscription's name and id
   */
  readonly onError?: (error: unknown, info: { readonly name: string; readonly id: string }) => void;
  /**
   * Carries publishes between processes (`createRedisFanout()` of `@jsonrpc-kit/redis`): then
   * {@link Subscriptions.publish} in any process reaches the subscribers of every process. The
   * topic is the subscription's name. An item is serialized once, where it is published; each
   * process receives its text once and hands it to all its subscribers. A subscribe call is
   * answered once this process hears the topic. A publish the fan-out refuses goes to `onError`
   * (with an empty `id`).
   *
   * @default none: publishes stay in this process
   */
  readonly fanout?: SubscriptionFanout | undefined;
}

/** The producers a contract's subscriptions need: typed by their schemas. */
export type ContractProducers<C extends Contract> = {
  readonly [K in SubscriptionNames<C>]: Producer<ParamsOutput<C[K]>, ItemInput<C[K]>>;
};

/** Subscriptions served on a server. See {@link createSubscriptions}. */
export interface Subscriptions {
  /**
   * Declares a subscription.
   *
   * @param name - the name subscribers ask for (`"newHeads"`)
   * @param producer - makes its items; omit for a topic fed only by {@link Subscriptions.publish}
   * @param options - params and item schemas
   * @returns a function that removes it and ends its live subscriptions
   * @throws TypeError when the name is empty or taken
   */
  subscription<P = any, I = unknown>(
    name: string,
    producer?: Producer<P, I>,
    options?: ProducerOptions,
  ): () => void;
  /**
   * Declares every subscription of a contract (its methods and notifications are left to
   * `server.implement()`).
   *
   * @param contract - the contract
   * @param producers - one producer per subscription
   * @returns a function that removes them all
   * @throws TypeError when a producer is missing or a name is taken
   */
  implement<C extends Contract>(contract: C, producers: ContractProducers<C>): () => void;
  /**
   * Pushes one item to every live subscription of `name` (those `filter` accepts), serialized
   * once for all of them. Each subscriber has its own bounded queue: a slow one never blocks the
   * others.
   *
   * @param name - the subscription's name
   * @param item - the item
   * @param filter - receives each subscription's params; `false` skips it (not with a fan-out:
   *   a filter cannot cross processes)
   * @returns a local count, never a count across processes: without a fan-out, how many of this
   *   process's live subscriptions of `name` the item was handed to (those `filter` accepted; a
   *   subscription whose queue then drops it under its overflow policy is counted too); with a
   *   fan-out, how many live subscriptions of `name` this process has now, which get it back
   *   through the fan-out (the subscribers of other processes are not known here and not counted,
   *   and `0` does not mean nobody gets it)
   * @throws TypeError when item validation is on and the item breaks the item schema, or when a
   *   filter is given with a fan-out
   * @example
   * ```ts
   * // 3 subscribers: 1 in this process, 2 in another one, both on the same Redis fan-out.
   * subscriptions.publish('newHeads', head); // 1: this process's only
   * ```
   */
  publish(name: string, item: unknown, filter?: (params: any) => boolean): number;
  /**
   * How many subscriptions are live.
   *
   * @param name - count only this subscription's
   * @returns the count
   */
  count(name?: string): number;
  /**
   * What the subscriptions hold for subscribers that have not taken it yet: items waiting in
   * their queues, and items handed to a transport whose send has not resolved.
   *
   * @param connection - count only what this connection's subscriptions hold (a server
   *   connection, or a handler's `ctx.peer`); omit for every connection
   * @returns how many items, and their size (UTF-16 units of their texts, or their bytes)
   * @example
   * ```ts
   * const { items, bytes } = subscriptions.held();
   * ```
   */
  held(connection?: Peer): {
    /** How many items are held. */
    readonly items: number;
    /** Their size: UTF-16 units of their texts, or their bytes. */
    readonly bytes: number;
  };
  /** Connections that hold a registry now (one per connection with a live subscription). */
  readonly connections: number;
  /**
   * Ends every subscription and removes the dialect's methods from the server.
   *
   * @returns resolves once done
   */
  close(): Promise<void>;
  /** `close()`, for `await using`. */
  [Symbol.asyncDispose](): Promise<void>;
}
