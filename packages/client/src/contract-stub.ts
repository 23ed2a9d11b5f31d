/**
 * Typed proxies over contracts: `client.contract(contract)` turns each method into a function that
 * sends the call and validates the result against the contract.
 *
 * @module
 */
import type {
  Contract,
  ContractEntry,
  InferInput,
  ItemOutput,
  JsonRpcParams,
  NotificationDefinition,
  ResultOutput,
  StandardSchemaV1,
  SubscriptionDefinition,
} from '@jsonrpc-kit/core';
import {
  checkOptionNames,
  contractName,
  type OptionNames,
  paramNamesOf,
} from '@jsonrpc-kit/core/engine';
import { namedParams, orderedParams, positionalParams } from './arguments.js';
import type { SubscribeOptions, Subscription } from './subscription-handle.js';

/** How a contract proxy puts params on the wire. */
export type ParamsStyle = 'byName' | 'byPosition';

/** Options of `client.contract()`. */
export interface ClientContractOptions {
  /** Prepended to every method name on the wire (`"calc."` sends `calc.add`). @default "" */
  readonly prefix?: string;
  /**
   * `"byName"` (the default) sends an object schema's params as an object and a tuple schema's
   * as an array (or as an object when the contract lists `paramNames`); `"byPosition"` sends an
   * object schema's values as an array, in the contract's `paramNames` order.
   */
  readonly params?: ParamsStyle;
  /**
   * `"qualified"` sends each entry as `Service.method`, the service being the contract's name
   * (`defineContract(entries, { name })`), as the server's `implement(…, { naming: 'qualified'
   * })` registers it; `"plain"` uses the names as they are. A `prefix` goes before either.
   * @default "plain"
   */
  readonly naming?: 'plain' | 'qualified';
}

/** Every name of {@link ClientContractOptions}. */
const CONTRACT_OPTION_NAMES: OptionNames<ClientContractOptions> = {
  prefix: true,
  params: true,
  naming: true,
};

/**
 * What a proxy function resolves to: the result schema's output for a method, `void` for a
 * notification.
 */
type Answer<E extends ContractEntry> =
  E extends NotificationDefinition<any> ? Promise<void> : Promise<ResultOutput<E>>;

/**
 * A tuple whose trailing elements that accept `undefined` may be left out:
 * `[string, number | undefined]` becomes `[string, (number | undefined)?]`.
 */
export type OptionalTail<T extends readonly unknown[]> = T extends readonly [
  ...infer Head,
  infer Last,
]
  ? undefined extends Last
    ? [...OptionalTail<Head>, Last?]
    : T
  : T;

/**
 * The function a contract proxy has for one entry: spread arguments for a tuple schema (trailing
 * optional ones may be left out), one object for an object schema (optional when every member is),
 * optional untyped params without a schema. A call with no arguments sends no params; a trailing
 * `undefined` argument is left out. Methods resolve to the result schema's output; notifications
 * resolve once sent; subscriptions take their params the same way, then their options.
 */
export type ContractStubFunction<E extends ContractEntry> =
  E extends SubscriptionDefinition<any, any> ? SubscribeFunction<E> : CallFunction<E>;

/** The options a contract subscription takes after its params: `client.subscribe()`'s but `item`. */
export type ContractSubscribeOptions<E extends ContractEntry> = Omit<
  SubscribeOptions<ItemOutput<E>>,
  'item'
>;

/**
 * The function a contract proxy has for a subscription: its params as a method takes them
 * (spread arguments for a tuple schema, trailing optional ones may be left out; one object for an
 * object schema), then the options of `client.subscribe()`. Options after a tuple's params come
 * after all of its places (`heads(undefined, { onItem })`); a schema of open length (an array)
 * takes no options. Items are validated against the item schema and typed by it.
 */
export type SubscribeFunction<E extends ContractEntry> = E['params'] extends StandardSchemaV1
  ? InferInput<E['params']> extends readonly unknown[]
    ? number extends InferInput<E['params']>['length']
      ? (...args: InferInput<E['params']>) => Subscription<ItemOutput<E>>
      : (
          ...args: [...OptionalTail<InferInput<E['params']>>, options?: ContractSubscribeOptions<E>]
        ) => Subscription<ItemOutput<E>>
    : {} extends InferInput<E['params']>
      ? (
          params?: InferInput<E['params']>,
          options?: ContractSubscribeOptions<E>,
        ) => Subscription<ItemOutput<E>>
      : (
          params: InferInput<E['params']>,
          options?: ContractSubscribeOptions<E>,
        ) => Subscription<ItemOutput<E>>
  : (params?: JsonRpcParams, options?: ContractSubscribeOptions<E>) => Subscription<ItemOutput<E>>;

/** The function a contract proxy has for a method or a notification. */
export type CallFunction<E extends ContractEntry> = E['params'] extends StandardSchemaV1
  ? InferInput<E['params']> extends readonly unknown[]
    ? (...args: OptionalTail<InferInput<E['params']>>) => Answer<E>
    : {} extends InferInput<E['params']>
      ? (params?: InferInput<E['params']>) => Answer<E>
      : (params: InferInput<E['params']>) => Answer<E>
  : (params?: JsonRpcParams) => Answer<E>;

/**
 * A typed proxy over a contract: one function per method and notification.
 *
 * @example
 * ```ts
 * const calc: ContractStub<typeof calculator> = client.contract(calculator);
 * const sum = await calc.add(1, 2);
 * ```
 */
export type ContractStub<C extends Contract> = {
  readonly [K in keyof C & string]: ContractStubFunction<C[K]>;
};

/** What a contract proxy needs from the client. Internal. */
export interface ContractCaller {
  call(
    method: string,
    params: JsonRpcParams | undefined,
    schema: StandardSchemaV1 | undefined,
  ): Promise<unknown>;
  notify(method: string, params?: JsonRpcParams): Promise<void>;
  subscribe(
    name: string,
    params: JsonRpcParams | undefined,
    options: SubscribeOptions<any>,
  ): Subscription<any>;
}

type Send = (params: JsonRpcParams | undefined) => Promise<unknown>;

/** Turns a proxy function's arguments into the params on the wire. */
type ParamsOf = (args: readonly unknown[]) => JsonRpcParams | undefined;

/** How many arguments a tuple schema takes: from the schema, else its names; `undefined`: open. */
function tupleLengthOf(schema: StandardSchemaV1, names: readonly string[] | undefined) {
  const s = schema as {
    items?: unknown;
    prefixItems?: unknown;
    rest?: unknown;
    def?: { items?: unknown; rest?: unknown };
    _def?: { items?: unknown; rest?: unknown };
  };
  if (s.rest != null || s.def?.rest != null || s._def?.rest != null) return undefined;
  const items = [s.items, s.prefixItems, s.def?.items, s._def?.items].find(Array.isArray);
  return (items as unknown[] | undefined)?.length ?? names?.length;
}

/**
 * How an entry's proxy function reads its arguments: the params, and how many arguments they
 * take (`undefined` for a schema of open length).
 */
function paramsReader(
  entry: ContractEntry,
  style: ParamsStyle,
): { readonly read: ParamsOf; readonly count: number | undefined } {
  const schema = entry.params as StandardSchemaV1 | undefined;
  if (schema === undefined) return { read: (args) => args[0] as JsonRpcParams, count: 1 };
  const objectNames = paramNamesOf(schema);
  if (objectNames !== undefined) {
    // An object schema: one params object (its `undefined` members never reach the wire).
    if (style === 'byName') return { read: (args) => args[0] as JsonRpcParams, count: 1 };
    const order = entry.paramNames ?? objectNames;
    return { read: (args) => orderedParams(order, args[0] as JsonRpcParams), count: 1 };
  }
  // A tuple (or other positional) schema: spread arguments.
  const names = entry.paramNames;
  const count = tupleLengthOf(schema, names);
  if (style === 'byName' && names !== undefined) {
    return { read: (args) => namedParams(names, args), count };
  }
  return { read: positionalParams, count };
}

/**
 * Builds a contract proxy. Internal: reached through `client.contract()`.
 *
 * @param caller - the client's call and notify
 * @param contract - the contract
 * @param options - prefix, naming and params style
 * @returns the frozen proxy
 * @throws TypeError when `options.params` is neither `"byName"` nor `"byPosition"`, `naming` is
 *   neither `"plain"` nor `"qualified"` (or `"qualified"` meets an unnamed contract), or an
 *   option name is unknown
 */
export function createContractStub<C extends Contract>(
  caller: ContractCaller,
  contract: C,
  options?: ClientContractOptions,
): ContractStub<C> {
  checkOptionNames('client.contract', options, CONTRACT_OPTION_NAMES);
  let prefix = options?.prefix ?? '';
  const naming = options?.naming ?? 'plain';
  if (naming === 'qualified') {
    const service = contractName(contract);
    if (service === undefined) {
      throw new TypeError(
        'naming "qualified" needs a named contract: defineContract(entries, { name })',
      );
    }
    prefix += service + '.';
  } else if (naming !== 'plain') {
    throw new TypeError(`naming must be "plain" or "qualified", got ${String(naming)}`);
  }
  const style = options?.params ?? 'byName';
  if (style !== 'byName' && style !== 'byPosition') {
    throw new TypeError(`params must be "byName" or "byPosition", got ${String(style)}`);
  }
  const proxy: Record<string, Function> = {};
  for (const name of Object.keys(contract)) {
    const entry = contract[name]!;
    const wireName = prefix + name;
    const { read, count } = paramsReader(entry, style);
    if (entry.kind === 'subscription') {
      const item = entry.item as StandardSchemaV1 | undefined;
      proxy[name] = (...args: unknown[]) => {
        // Options come after every place of the params.
        const options =
          count !== undefined && args.length > count
            ? (args[count] as SubscribeOptions<unknown> | undefined)
            : undefined;
        const params = read(
          count !== undefined && args.length > count ? args.slice(0, count) : args,
        );
        return caller.subscribe(wireName, params, { ...options, item });
      };
      continue;
    }
    const send: Send =
      entry.kind === 'notification'
        ? (params) => caller.notify(wireName, params)
        : (params) => caller.call(wireName, params, entry.result as StandardSchemaV1 | undefined);
    proxy[name] = (...args: unknown[]) => send(read(args));
  }
  return Object.freeze(proxy) as unknown as ContractStub<C>;
}
