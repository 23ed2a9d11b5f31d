/// <reference lib="esnext.disposable" preserve="true" />
/**
 * `createSubscriptions()`: server push as subscriptions. Serves a dialect's subscribe and
 * unsubscribe methods on a server, keeps a registry per connection, runs producers, fans items
 * out serialized once, and cleans up on unsubscribe, connection close and server close. A live
 * subscription's run and end are in `subscription-run.ts`, the public types in
 * `subscription-types.ts`.
 *
 * @module
 */
import {
  ErrorCode,
  genericSubscriptions,
  InvalidParamsError,
  JsonRpcError,
  type JsonRpcParams,
  type Peer,
  ServerBusyError,
  SubscriptionError,
} from '@jsonrpc-kit/core';
import {
  asyncDisposeSymbol,
  checkOptionNames,
  checkSchema,
  formatIssues,
  jsonWriterOf,
  type OptionNames,
  validate,
} from '@jsonrpc-kit/core/engine';
import { directTransportOf } from './connection.js';
import { ConnectionBudget, type HeldTotals } from './connection-budget.js';
import type { Server } from './server-types.js';
import { fanoutTopics } from './subscription-fanout.js';
import {
  type Declared,
  defaultValidateItems,
  isAsyncIterable,
  Live,
  newId,
  type Registry,
  SharedTail,
  textTarget,
} from './subscription-live.js';
import { OVERFLOW_POLICIES } from './subscription-outbox.js';
import { createLiveRun, itemTail } from './subscription-run.js';
import {
  DEFAULT_QUEUE_BYTES_PER_CONNECTION,
  DEFAULT_SUBSCRIPTION_QUEUE,
  DEFAULT_SUBSCRIPTIONS_PER_CONNECTION,
  type Producer,
  type ProducerOptions,
  type SubscriptionContext,
  type Subscriptions,
  type SubscriptionsOptions,
} from './subscription-types.js';
import type { HandlerContext } from './types.js';

/**
 * Refuses a subscription's `params` or `item` that is not a Standard Schema.
 *
 * @param name - the subscription's name
 * @param entry - its declaration
 * @throws TypeError naming the member
 */
function checkSchemas(name: string, entry: Declared): void {
  checkSchema(entry.params, `Subscription "${name}": params`);
  checkSchema(entry.item, `Subscription "${name}": item`);
}

/** Every name of {@link ProducerOptions}. */
const PRODUCER_OPTION_NAMES: OptionNames<ProducerOptions> = {
  params: true,
  item: true,
  description: true,
};

/** Every name of {@link SubscriptionsOptions}. */
const SUBSCRIPTIONS_OPTION_NAMES: OptionNames<SubscriptionsOptions> = {
  dialect: true,
  maxQueue: true,
  maxSubscriptionsPerConnection: true,
  maxQueueBytesPerConnection: true,
  overflow: true,
  validateItems: true,
  onError: true,
  fanout: true,
};

/**
 * Serves subscriptions on a server: registers the dialect's subscribe and unsubscribe methods
 * and answers them on duplex connections (`server.connect()`, WebSocket, stdio). Ids are
 * unguessable and scoped to their connection; every subscription ends, and its producer's
 * cleanup runs, on unsubscribe, on connection close, on server close and on `close()`.
 *
 * @param server - the server
 * @param options - dialect, queue bounds (per subscription and per connection), subscriptions
 *   per connection, overflow policy, item validation, error hook
 * @returns the subscriptions
 * @throws TypeError when the dialect's methods are already registered, `overflow` is unknown or
 *   an option name is unknown;
 *   RangeError when `maxQueue`, `maxSubscriptionsPerConnection` or `maxQueueBytesPerConnection`
 *   is not a positive number
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
  checkOptionNames('createSubscriptions', options, SUBSCRIPTIONS_OPTION_NAMES);
  const dialect = options.dialect ?? genericSubscriptions;
  const maxQueue = options.maxQueue ?? DEFAULT_SUBSCRIPTION_QUEUE;
  if (!(maxQueue > 0)) throw new RangeError('maxQueue must be a number > 0');
  const maxPerConnection =
    options.maxSubscriptionsPerConnection ?? DEFAULT_SUBSCRIPTIONS_PER_CONNECTION;
  if (!(maxPerConnection > 0)) {
    throw new RangeError('maxSubscriptionsPerConnection must be a number > 0');
  }
  const maxBytesPerConnection =
    options.maxQueueBytesPerConnection ?? DEFAULT_QUEUE_BYTES_PER_CONNECTION;
  if (!(maxBytesPerConnection > 0)) {
    throw new RangeError('maxQueueBytesPerConnection must be a number > 0');
  }
  /** What every connection's budget holds, kept along by the budgets. */
  const heldTotals: HeldTotals = { items: 0, bytes: 0 };
  /** Each connection's budget: kept while its ended subscriptions still drain. */
  const budgets = new WeakMap<Peer, ConnectionBudget>();
  const overflow = options.overflow ?? 'drop-oldest';
  if (!OVERFLOW_POLICIES.has(overflow)) {
    throw new TypeError('overflow must be "drop-oldest", "drop-newest" or "close"');
  }
  const validateItems = options.validateItems ?? defaultValidateItems();
  /** Writes items: the server's codec encodes them, as it encodes results. */
  const write = jsonWriterOf(server.codec) ?? JSON.stringify;
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
  const { itemText, end, endWith, deliver, iterate } = createLiveRun({
    options,
    dialect,
    maxQueue,
    validateItems,
    write,
    registries,
    byName,
  });

  const fanout =
    options.fanout === undefined
      ? undefined
      : fanoutTopics(
          options.fanout,
          (name, json) => {
            const named = byName.get(name);
            if (named === undefined) return;
            const tail = new SharedTail(itemTail(json));
            for (const live of named) deliver(live, tail);
          },
          (error, name) => {
            try {
              options.onError?.(error, { name, id: '' });
            } catch {
              // the hook's own throws are ignored
            }
          },
        );

  /** Refuses a subscribe on a connection that holds its limit of live subscriptions. */
  const checkRoom = (peer: Peer): void => {
    const held = registries.get(peer)?.live.size ?? 0;
    if (held >= maxPerConnection) {
      throw new ServerBusyError(
        `Too many subscriptions on this connection (limit ${maxPerConnection})`,
        { limit: maxPerConnection },
      );
    }
  };

  /** Peers whose close is watched: once per connection, however often it subscribes. */
  const watched = new WeakSet<Peer>();

  const registryOf = (peer: Peer): Registry => {
    let registry = registries.get(peer);
    if (registry === undefined) {
      let budget = budgets.get(peer);
      if (budget === undefined) {
        budget = new ConnectionBudget(maxBytesPerConnection, heldTotals);
        budgets.set(peer, budget);
      }
      registry = { peer, target: textTarget(peer), live: new Map(), budget };
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
    checkRoom(peer);
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
    await fanout?.listen(call.name);
    // The connection (or these subscriptions) may have closed while the params were checked:
    // nothing may be left behind.
    if (ctx.signal.aborted) throw ctx.signal.reason;
    if (hubClosed || declared.get(call.name) !== entry) {
      throw new InvalidParamsError(`Unknown subscription "${call.name}"`);
    }
    // Checked again: other subscribes of this connection may have taken the room meanwhile.
    checkRoom(peer);
    const registry = registryOf(peer);
    const id = newId();
    const live: Live = new Live(
      { id, name: call.name, params, head: headStart + JSON.stringify(id) + headEnd, registry },
      maxQueue,
      overflow,
      () => end(live),
    );
    registry.live.set(id, live);
    let named = byName.get(call.name);
    if (named === undefined) byName.set(call.name, (named = new Set()));
    named.add(live);
    const context: SubscriptionContext = {
      signal: live.controller.signal,
      id,
      name: call.name,
      peer,
      transport: ctx.transport,
      emit: (item) => deliver(live, itemTail(itemText(call.name, entry.item, item))),
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
    // Items wait until the answer carrying the id has gone out; then, on a server connection,
    // they go straight to its transport.
    live.timer = setTimeout(() => {
      live.timer = undefined;
      live.release(directTransportOf(peer));
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
    checkSchemas(name, entry);
    if (declared.has(name)) throw new TypeError(`Subscription "${name}" is already declared`);
    declared.set(name, entry);
    return () => {
      if (declared.get(name) !== entry) return;
      declared.delete(name);
      fanout?.forget(name);
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
      checkOptionNames(`Subscription "${name}"`, producerOptions, PRODUCER_OPTION_NAMES);
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
        const entry = {
          producer: producer as Producer,
          params: definition.params,
          item: definition.item,
        };
        checkSchemas(name, entry);
        entries.push([name, entry]);
      }
      const removers = entries.map(([name, entry]) => declare(name, entry));
      return () => {
        for (const remove of removers) remove();
      };
    },
    publish(name, item, filter) {
      if (fanout !== undefined) {
        if (filter !== undefined) throw new TypeError('A publish filter cannot cross processes');
        const json = itemText(name, declared.get(name)?.item, item);
        fanout.publish(name, json);
        return byName.get(name)?.size ?? 0;
      }
      const named = byName.get(name);
      if (named === undefined) return 0;
      const tail = new SharedTail(itemTail(itemText(name, declared.get(name)?.item, item)));
      let count = 0;
      for (const live of named) {
        if (filter !== undefined && !filter(live.params)) continue;
        deliver(live, tail);
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
    held(connection) {
      if (connection === undefined) return { items: heldTotals.items, bytes: heldTotals.bytes };
      const budget = budgets.get(connection);
      return budget === undefined
        ? { items: 0, bytes: 0 }
        : { items: budget.items, bytes: budget.handed + budget.waiting };
    },
    get connections() {
      return registries.size;
    },
    close() {
      hubClosed = true;
      fanout?.forgetAll();
      for (const remove of removeMethods) remove();
      endAll();
      return Promise.resolve();
    },
    [asyncDisposeSymbol]: () => subscriptions.close(),
  };
  return subscriptions;
}
