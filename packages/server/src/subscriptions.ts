/// <reference lib="esnext.disposable" preserve="true" />
/**
 * `createSubscriptions()`: server push as subscriptions. Serves a dialect's subscribe and
 * unsubscribe methods on a server, keeps a registry per connection, runs producers, fans items
 * out serialized once, and cleans up on unsubscribe, connection close and server close.
 *
 * @module
 */
import {
  asyncDisposeSymbol,
  type Contract,
  ErrorCode,
  formatIssues,
  genericSubscriptions,
  InvalidParamsError,
  type ItemInput,
  isJsonRpcError,
  JsonRpcError,
  type JsonRpcParams,
  type ParamsOutput,
  type Peer,
  type StandardSchemaV1,
  type SubscriptionDialect,
  SubscriptionError,
  type SubscriptionNames,
  serializeNotification,
  type TransportContext,
  validate,
} from '@jsonrpc-kit/core';
import {
  createOutbox,
  type Outbox,
  OVERFLOW_POLICIES,
  type OverflowPolicy,
} from './subscription-outbox.js';
import type { HandlerContext, Server } from './types.js';

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
   * @param filter - receives each subscription's params; `false` skips it
   * @returns how many subscriptions it was pushed to
   * @throws TypeError when item validation is on and the item breaks the item schema
   */
  publish(name: string, item: unknown, filter?: (params: any) => boolean): number;
  /**
   * How many subscriptions are live.
   *
   * @param name - count only this subscription's
   * @returns the count
   */
  count(name?: string): number;
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

interface Declared {
  readonly producer: Producer | undefined;
  readonly params: StandardSchemaV1 | undefined;
  readonly item: StandardSchemaV1 | undefined;
}

interface Live {
  readonly id: string;
  readonly name: string;
  readonly params: unknown;
  readonly head: string;
  readonly registry: Registry;
  readonly controller: AbortController;
  readonly outbox: Outbox;
  ended: boolean;
  cleanup: (() => void) | undefined;
  iterator: AsyncIterator<unknown> | undefined;
  timer: ReturnType<typeof setTimeout> | undefined;
}

interface Registry {
  readonly peer: Peer;
  readonly send: (text: string) => Promise<void>;
  readonly live: Map<string, Live>;
}

const HEX: readonly string[] = Array.from({ length: 256 }, (_, i) =>
  i.toString(16).padStart(2, '0'),
);

/** An unguessable subscription id: `0x` and 128 random bits in hex, as Ethereum nodes give. */
function newId(): string {
  const bytes = crypto.getRandomValues(new Uint8Array(16));
  let id = '0x';
  for (const byte of bytes) id += HEX[byte];
  return id;
}

function defaultValidateItems(): boolean {
  const env = (globalThis as { process?: { env?: Record<string, string | undefined> } }).process
    ?.env;
  return env?.NODE_ENV !== 'production';
}

function isAsyncIterable(value: unknown): value is AsyncIterable<unknown> {
  return (
    typeof value === 'object' &&
    value !== null &&
    typeof (value as { [Symbol.asyncIterator]?: unknown })[Symbol.asyncIterator] === 'function'
  );
}

/**
 * How a subscription sends its serialized texts to a peer: as they are where the peer can
 * (`sendText`, a server connection), else parsed once more and sent with `notify`.
 */
function textSender(peer: Peer): (text: string) => Promise<void> {
  const sendText = peer.sendText;
  if (sendText !== undefined) return sendText.bind(peer);
  return (text) => {
    const message = JSON.parse(text) as { method: string; params?: JsonRpcParams };
    return peer.notify(message.method, message.params);
  };
}

function errorObject(error: unknown): { code: number; message: string } {
  return isJsonRpcError(error)
    ? { code: error.code, message: error.message }
    : error instanceof SubscriptionError
      ? { code: ErrorCode.InternalError, message: error.message }
      : { code: ErrorCode.InternalError, message: 'Internal error' };
}

/**
 * Serves subscriptions on a server: registers the dialect's subscribe and unsubscribe methods
 * and answers them on duplex connections (`server.connect()`, WebSocket, stdio). Ids are
 * unguessable and scoped to their connection; every subscription ends, and its producer's
 * cleanup runs, on unsubscribe, on connection close, on server close and on `close()`.
 *
 * @param server - the server
 * @param options - dialect, queue bound, overflow policy, item validation, error hook
 * @returns the subscriptions
 * @throws TypeError when the dialect's methods are already registered or `overflow` is unknown;
 *   RangeError when `maxQueue` is not a positive number
 * @example
 * ```ts
 * const server = createServer();
 * const subscriptions = createSubscriptions(server, { dialect: ethereumSubscriptions });
 * subscriptions.subscription('newHeads');
 * setInterval(() => subscriptions.publish('newHeads', { number: '0x1' }), 1000);
 * ```
 */
export function createSubscriptions(
  server: Server,
  options: SubscriptionsOptions = {},
): Subscriptions {
  const dialect = options.dialect ?? genericSubscriptions;
  const maxQueue = options.maxQueue ?? DEFAULT_SUBSCRIPTION_QUEUE;
  if (!(maxQueue > 0)) throw new RangeError('maxQueue must be a number > 0');
  const overflow = options.overflow ?? 'drop-oldest';
  if (!OVERFLOW_POLICIES.has(overflow)) {
    throw new TypeError('overflow must be "drop-oldest", "drop-newest" or "close"');
  }
  const validateItems = options.validateItems ?? defaultValidateItems();
  let hubClosed = false;
  const declared = new Map<string, Declared>();
  const registries = new Map<Peer, Registry>();
  const byName = new Map<string, Set<Live>>();
  const headStart =
    '{"jsonrpc":"2.0","method":' +
    JSON.stringify(dialect.item) +
    ',"params":{' +
    JSON.stringify(dialect.idKey) +
    ':';
  const headEnd = ',' + JSON.stringify(dialect.itemKey) + ':';

  const report = (error: unknown, live: Live): void => {
    try {
      options.onError?.(error, { name: live.name, id: live.id });
    } catch {
      // the hook's own throws are ignored
    }
  };

  /** The item's JSON text, checked against the schema when validation is on. */
  const itemText = (name: string, schema: StandardSchemaV1 | undefined, item: unknown): string => {
    if (validateItems && schema !== undefined) {
      const verdict = validate(schema, item);
      if (!(verdict instanceof Promise) && verdict.issues !== undefined) {
        const issues = formatIssues(verdict.issues)
          .map((issue) => (issue.path === '' ? issue.message : `${issue.path}: ${issue.message}`))
          .join('; ');
        throw new TypeError(`Item of subscription "${name}" breaks its schema: ${issues}`);
      }
    }
    const json = JSON.stringify(item);
    return json === undefined ? 'null' : json;
  };

  /**
   * Ends a live subscription: out of the registries, producer stopped and cleaned up. With
   * `last`, what its outbox holds still goes out, followed by `last` (the end notice, or
   * `undefined` for none); without, what waits is dropped (the subscriber left or unsubscribed).
   */
  const end = (
    live: Live,
    reason?: unknown,
    last?: { readonly text: string | undefined },
  ): void => {
    if (live.ended) return;
    live.ended = true;
    live.registry.live.delete(live.id);
    if (live.registry.live.size === 0) registries.delete(live.registry.peer);
    const named = byName.get(live.name);
    named?.delete(live);
    if (named?.size === 0) byName.delete(live.name);
    if (last === undefined) {
      if (live.timer !== undefined) clearTimeout(live.timer);
      live.timer = undefined;
      live.outbox.clear();
    } else {
      // A pending timer still releases the outbox, after the subscribe answer.
      live.outbox.finish(last.text);
    }
    live.controller.abort(reason ?? new SubscriptionError('SUBSCRIPTION_ENDED', 'Unsubscribed'));
    const { cleanup, iterator } = live;
    live.cleanup = undefined;
    live.iterator = undefined;
    try {
      cleanup?.();
    } catch (error) {
      report(error, live);
    }
    iterator?.return?.().catch((error: unknown) => report(error, live));
  };

  /**
   * Ends a live subscription from the server's side and tells the subscriber when the dialect
   * can, after every item its queue kept.
   */
  const endWith = (live: Live, error: unknown): void => {
    if (live.ended) return;
    let text: string | undefined;
    if (dialect.end !== undefined) {
      const params: Record<string, unknown> = { [dialect.idKey]: live.id };
      if (error !== undefined) params.error = errorObject(error);
      text = serializeNotification(dialect.end, params as JsonRpcParams);
    }
    end(live, error, { text });
  };

  const deliver = (live: Live, json: string): void => {
    if (live.ended) return;
    if (live.outbox.push(live.head + json + '}}')) return;
    const error = new SubscriptionError(
      'SUBSCRIPTION_OVERFLOW',
      `Subscription "${live.name}" closed: its subscriber fell ${maxQueue} items behind`,
      { name: live.name },
    );
    report(error, live);
    endWith(live, error);
  };

  const iterate = async (
    live: Live,
    iterable: AsyncIterable<unknown>,
    schema: Declared['item'],
  ) => {
    const iterator = iterable[Symbol.asyncIterator]();
    live.iterator = iterator;
    try {
      while (!live.ended) {
        const step = await iterator.next();
        if (step.done === true || live.ended) break;
        deliver(live, itemText(live.name, schema, step.value));
      }
      live.iterator = undefined;
      endWith(live, undefined);
    } catch (error) {
      live.iterator = undefined;
      if (live.ended) return;
      report(error, live);
      endWith(live, error);
    }
  };

  /** Peers whose close is watched: once per connection, however often it subscribes. */
  const watched = new WeakSet<Peer>();

  const registryOf = (peer: Peer): Registry => {
    let registry = registries.get(peer);
    if (registry === undefined) {
      registry = { peer, send: textSender(peer), live: new Map() };
      registries.set(peer, registry);
      const closed = (peer as { closed?: unknown }).closed;
      if (closed instanceof Promise && !watched.has(peer)) {
        watched.add(peer);
        closed.then(() => {
          for (const live of registries.get(peer)?.live.values() ?? []) end(live);
        });
      }
    }
    return registry;
  };

  const subscribe = async (
    raw: JsonRpcParams | undefined,
    ctx: HandlerContext,
  ): Promise<string> => {
    const peer = ctx.peer;
    if (peer === undefined) {
      throw new JsonRpcError(ErrorCode.MethodNotFound, 'Subscriptions need a duplex connection');
    }
    const call = dialect.fromSubscribeParams(raw);
    if (call === undefined) throw new InvalidParamsError('No subscription named');
    const entry = declared.get(call.name);
    if (entry === undefined) throw new InvalidParamsError(`Unknown subscription "${call.name}"`);
    let params: unknown = call.params;
    if (entry.params !== undefined) {
      const verdict = await validate(entry.params, params);
      if (verdict.issues !== undefined) {
        throw new InvalidParamsError('Invalid params', formatIssues(verdict.issues));
      }
      params = verdict.value;
    }
    // The connection (or these subscriptions) may have closed while the params were checked:
    // nothing may be left behind.
    if (ctx.signal.aborted) throw ctx.signal.reason;
    if (hubClosed || declared.get(call.name) !== entry) {
      throw new InvalidParamsError(`Unknown subscription "${call.name}"`);
    }
    const registry = registryOf(peer);
    const id = newId();
    const controller = new AbortController();
    const live: Live = {
      id,
      name: call.name,
      params,
      head: headStart + JSON.stringify(id) + headEnd,
      registry,
      controller,
      outbox: createOutbox(registry.send, maxQueue, overflow, () => end(live)),
      ended: false,
      cleanup: undefined,
      iterator: undefined,
      timer: undefined,
    };
    registry.live.set(id, live);
    let named = byName.get(call.name);
    if (named === undefined) byName.set(call.name, (named = new Set()));
    named.add(live);
    const context: SubscriptionContext = {
      signal: controller.signal,
      id,
      name: call.name,
      peer,
      transport: ctx.transport,
      emit: (item) => deliver(live, itemText(call.name, entry.item, item)),
    };
    let produced: unknown;
    try {
      produced = entry.producer?.(params, context);
      if (produced instanceof Promise) produced = await produced;
    } catch (error) {
      end(live, error);
      throw error;
    }
    if (live.ended) throw new SubscriptionError('SUBSCRIPTION_ENDED', 'Subscription ended');
    if (typeof produced === 'function') live.cleanup = produced as () => void;
    // Items wait until the answer carrying the id has gone out.
    live.timer = setTimeout(() => {
      live.timer = undefined;
      live.outbox.release();
      if (!live.ended && isAsyncIterable(produced)) void iterate(live, produced, entry.item);
    }, 0);
    return id;
  };

  const unsubscribe = (raw: JsonRpcParams | undefined, ctx: HandlerContext): boolean => {
    const id = dialect.fromUnsubscribeParams(raw);
    if (id === undefined) throw new InvalidParamsError('No subscription id');
    const live = ctx.peer === undefined ? undefined : registries.get(ctx.peer)?.live.get(id);
    if (live === undefined) return false;
    end(live);
    return true;
  };

  const removeMethods = [
    server.method(dialect.subscribe, subscribe),
    server.method(dialect.unsubscribe, unsubscribe),
  ];

  const declare = (name: string, entry: Declared): (() => void) => {
    if (typeof name !== 'string' || name.length === 0) {
      throw new TypeError('A subscription name must be a non-empty string');
    }
    if (declared.has(name)) throw new TypeError(`Subscription "${name}" is already declared`);
    declared.set(name, entry);
    return () => {
      if (declared.get(name) !== entry) return;
      declared.delete(name);
      for (const live of byName.get(name) ?? []) endWith(live, undefined);
    };
  };

  const endAll = (): void => {
    for (const registry of registries.values()) {
      for (const live of registry.live.values()) endWith(live, undefined);
    }
  };

  const subscriptions: Subscriptions = {
    subscription(name, producer, producerOptions) {
      if (producer !== undefined && typeof producer !== 'function') {
        throw new TypeError(`The producer of "${name}" must be a function`);
      }
      return declare(name, {
        producer: producer as Producer | undefined,
        params: producerOptions?.params,
        item: producerOptions?.item,
      });
    },
    implement(contract, producers) {
      const given = producers as Record<string, unknown>;
      const entries: [string, Declared][] = [];
      for (const [name, definition] of Object.entries(contract)) {
        if (definition.kind !== 'subscription') continue;
        const producer = Object.hasOwn(given, name) ? given[name] : undefined;
        if (typeof producer !== 'function') {
          throw new TypeError(`The producers have none for "${name}"`);
        }
        if (declared.has(name)) throw new TypeError(`Subscription "${name}" is already declared`);
        entries.push([
          name,
          { producer: producer as Producer, params: definition.params, item: definition.item },
        ]);
      }
      const removers = entries.map(([name, entry]) => declare(name, entry));
      return () => {
        for (const remove of removers) remove();
      };
    },
    publish(name, item, filter) {
      const named = byName.get(name);
      if (named === undefined) return 0;
      const json = itemText(name, declared.get(name)?.item, item);
      let count = 0;
      for (const live of named) {
        if (filter !== undefined && !filter(live.params)) continue;
        deliver(live, json);
        count++;
      }
      return count;
    },
    count(name) {
      if (name !== undefined) return byName.get(name)?.size ?? 0;
      let count = 0;
      for (const registry of registries.values()) count += registry.live.size;
      return count;
    },
    get connections() {
      return registries.size;
    },
    close() {
      hubClosed = true;
      for (const remove of removeMethods) remove();
      endAll();
      return Promise.resolve();
    },
    [asyncDisposeSymbol]: () => subscriptions.close(),
  };
  return subscriptions;
}
