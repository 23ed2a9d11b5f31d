/**
 * Subscription dialects: how a subscription travels on the wire, as plain data (like the
 * cancellation profiles). The server half lives in `@jsonrpc-kit/server`, the client half in
 * `@jsonrpc-kit/client`; both read the same dialect.
 *
 * @module
 */
import type { JsonRpcParams } from './messages.js';

/** A subscribe call, as read from the wire: the subscription's name and its own params. */
export interface SubscribeCall {
  /** The subscription's name (`"newHeads"`). */
  readonly name: string;
  /** Its params, without the name. */
  readonly params: JsonRpcParams | undefined;
}

/**
 * How subscriptions travel on the wire. Two ship with the kit: {@link ethereumSubscriptions}
 * and {@link genericSubscriptions}; {@link createSubscriptionDialect} makes others.
 *
 * Items are pushed as the notification `item` with params `{ [idKey]: id, [itemKey]: item }`.
 */
export interface SubscriptionDialect {
  /** The method that subscribes; answered with the subscription id (a string). */
  readonly subscribe: string;
  /** The method that unsubscribes; answered `true`, or `false` for an unknown id. */
  readonly unsubscribe: string;
  /** The notification that carries an item. */
  readonly item: string;
  /** The member of the item notification's params naming the subscription id. */
  readonly idKey: string;
  /** The member of the item notification's params holding the item. */
  readonly itemKey: string;
  /**
   * The notification that ends a subscription from the server's side, with params
   * `{ [idKey]: id, error: { code, message } }`, or `undefined` when the dialect has none
   * (Ethereum): the subscription then just stops.
   */
  readonly end: string | undefined;
  /**
   * Builds the subscribe call's params.
   *
   * @param name - the subscription's name
   * @param params - its params
   */
  toSubscribeParams(name: string, params: JsonRpcParams | undefined): JsonRpcParams;
  /**
   * Reads a subscribe call's params.
   *
   * @param params - the params received
   * @returns the name and params, or `undefined` when they name no subscription
   */
  fromSubscribeParams(params: JsonRpcParams | undefined): SubscribeCall | undefined;
  /**
   * Builds the unsubscribe call's params.
   *
   * @param id - the subscription id
   */
  toUnsubscribeParams(id: string): JsonRpcParams;
  /**
   * Reads the subscription id from an unsubscribe call's params.
   *
   * @param params - the params received
   * @returns the id, or `undefined` when the params name none
   */
  fromUnsubscribeParams(params: JsonRpcParams | undefined): string | undefined;
}

function firstString(params: JsonRpcParams | undefined, key: string): string | undefined {
  const value = Array.isArray(params)
    ? params[0]
    : typeof params === 'object' && params !== null
      ? (params as Record<string, unknown>)[key]
      : undefined;
  return typeof value === 'string' ? value : undefined;
}

/**
 * The Ethereum dialect (geth, viem): `eth_subscribe(kind, ...params)` answered with the id,
 * items as `eth_subscription` with `{ subscription, result }`, `eth_unsubscribe(id)` answered
 * `true`. A subscription's params are the positional params after the kind.
 *
 * @example
 * ```ts
 * ethereumSubscriptions.toSubscribeParams('logs', [{ address: '0x…' }]); // ['logs', { address: '0x…' }]
 * ```
 */
export const ethereumSubscriptions: SubscriptionDialect = /* @__PURE__ */ Object.freeze({
  subscribe: 'eth_subscribe',
  unsubscribe: 'eth_unsubscribe',
  item: 'eth_subscription',
  idKey: 'subscription',
  itemKey: 'result',
  end: undefined,
  toSubscribeParams: (name: string, params: JsonRpcParams | undefined): JsonRpcParams =>
    params === undefined ? [name] : Array.isArray(params) ? [name, ...params] : [name, params],
  fromSubscribeParams: (params: JsonRpcParams | undefined): SubscribeCall | undefined => {
    if (!Array.isArray(params) || typeof params[0] !== 'string') return undefined;
    return { name: params[0], params: params.slice(1) };
  },
  toUnsubscribeParams: (id: string): JsonRpcParams => [id],
  fromUnsubscribeParams: (params: JsonRpcParams | undefined): string | undefined =>
    Array.isArray(params) ? firstString(params, '') : undefined,
});

/** Options of {@link createSubscriptionDialect}: the names of the generic dialect's parts. */
export interface SubscriptionDialectOptions {
  /** @default "subscribe" */
  readonly subscribe?: string;
  /** @default "unsubscribe" */
  readonly unsubscribe?: string;
  /** @default "subscription" */
  readonly item?: string;
  /** @default "subscription.end"; `null` for none */
  readonly end?: string | null;
  /** Member naming the subscription id (in item, end and unsubscribe params). @default "subscription" */
  readonly idKey?: string;
  /** Member holding the item. @default "item" */
  readonly itemKey?: string;
  /** Member of the subscribe params naming the subscription. @default "name" */
  readonly nameKey?: string;
  /** Member of the subscribe params holding the subscription's params. @default "params" */
  readonly paramsKey?: string;
}

/**
 * Makes a dialect with by-name params: `subscribe({ name, params })` answered with the id,
 * items as `subscription` with `{ subscription, item }`, `unsubscribe({ subscription })`
 * answered `true`, and `subscription.end` with `{ subscription, error }` when the server ends one.
 * Every name is configurable.
 *
 * @param options - the names
 * @returns the dialect
 * @throws TypeError when a name is empty
 * @example
 * ```ts
 * const dialect = createSubscriptionDialect({ subscribe: 'watch', unsubscribe: 'unwatch' });
 * ```
 */
export function createSubscriptionDialect(
  options: SubscriptionDialectOptions = {},
): SubscriptionDialect {
  const idKey = options.idKey ?? 'subscription';
  const nameKey = options.nameKey ?? 'name';
  const paramsKey = options.paramsKey ?? 'params';
  const names = {
    subscribe: options.subscribe ?? 'subscribe',
    unsubscribe: options.unsubscribe ?? 'unsubscribe',
    item: options.item ?? 'subscription',
    idKey,
    itemKey: options.itemKey ?? 'item',
  };
  for (const [key, value] of Object.entries({ ...names, nameKey, paramsKey })) {
    if (typeof value !== 'string' || value.length === 0) {
      throw new TypeError(`Subscription dialect: ${key} must be a non-empty string`);
    }
  }
  return Object.freeze({
    ...names,
    end: options.end === null ? undefined : (options.end ?? 'subscription.end'),
    toSubscribeParams: (name: string, params: JsonRpcParams | undefined): JsonRpcParams =>
      params === undefined ? { [nameKey]: name } : { [nameKey]: name, [paramsKey]: params },
    fromSubscribeParams: (params: JsonRpcParams | undefined): SubscribeCall | undefined => {
      if (typeof params !== 'object' || params === null || Array.isArray(params)) return undefined;
      const record = params as Record<string, unknown>;
      const name = record[nameKey];
      const inner = record[paramsKey];
      if (typeof name !== 'string') return undefined;
      if (inner !== undefined && (typeof inner !== 'object' || inner === null)) return undefined;
      return { name, params: inner as JsonRpcParams | undefined };
    },
    toUnsubscribeParams: (id: string): JsonRpcParams => ({ [idKey]: id }),
    fromUnsubscribeParams: (params: JsonRpcParams | undefined): string | undefined =>
      Array.isArray(params) ? undefined : firstString(params, idKey),
  });
}

/** The generic dialect with its default names (see {@link createSubscriptionDialect}). */
export const genericSubscriptions: SubscriptionDialect =
  /* @__PURE__ */ createSubscriptionDialect();

/** What ended a subscription, as a stable string. */
export type SubscriptionErrorCode =
  | 'SUBSCRIPTION_OVERFLOW'
  | 'SUBSCRIPTION_REFUSED'
  | 'SUBSCRIPTION_ENDED';

/**
 * A subscription ended by something other than its own `unsubscribe()`: its queue overflowed
 * under the `close` policy (`SUBSCRIPTION_OVERFLOW`), the server refused it on resubscribe
 * (`SUBSCRIPTION_REFUSED`, the server's error as `cause`), or the server or producer ended it
 * (`SUBSCRIPTION_ENDED`). A local error: it never crosses the wire as such.
 *
 * @example
 * ```ts
 * const error = new SubscriptionError('SUBSCRIPTION_OVERFLOW', 'Subscriber too slow', { name: 'newHeads' });
 * error.code; // 'SUBSCRIPTION_OVERFLOW'
 * ```
 */
export class SubscriptionError extends Error {
  /** What ended the subscription. */
  readonly code: SubscriptionErrorCode;
  /** The subscription's name. */
  readonly subscription: string | undefined;

  /**
   * @param code - what ended the subscription
   * @param message - a description
   * @param options - the subscription's name and a cause
   */
  constructor(
    code: SubscriptionErrorCode,
    message: string,
    options?: { readonly name?: string; readonly cause?: unknown },
  ) {
    super(message, options?.cause === undefined ? undefined : { cause: options.cause });
    this.name = 'SubscriptionError';
    this.code = code;
    this.subscription = options?.name;
  }
}
