/**
 * Contracts: end-to-end types without code generation. A contract names methods and
 * notifications with their param and result schemas (any Standard Schema). The same object types
 * the server's implementation and the client's proxy, validates at run time on both sides, and
 * describes the API for OpenRPC.
 *
 * This module holds the builders (`method`, `notification`, `subscription`, `defineContract`) and
 * their options; the types are in `contract-types.ts` and `method-docs.ts`, the param-shape helpers
 * in `param-shape.ts`, the declared-error helpers in `declared-errors.ts`, all re-exported here.
 *
 * @module
 */
import type {
  Contract,
  MaybeSchema,
  MethodDefinition,
  NotificationDefinition,
  SubscriptionDefinition,
} from './contract-types.js';
import type { MethodDocs, MethodDocsOf, MethodError } from './method-docs.js';
import { checkParamNames, paramNamesOf } from './param-shape.js';
import { checkSchema } from './schema.js';

export * from './contract-types.js';
export * from './declared-errors.js';
export * from './method-docs.js';
export * from './param-shape.js';

/** Options of {@link method}. */
export interface MethodOptions<
  P extends MaybeSchema,
  R extends MaybeSchema,
  E extends readonly MethodError[] = readonly MethodError[],
> {
  /** Schema of the params. */
  readonly params?: P;
  /** Schema of the result. */
  readonly result?: R;
  /** Parameter names in positional order (read from an object schema when omitted). */
  readonly paramNames?: readonly string[];
  /** Description for OpenRPC. */
  readonly description?: string;
  /**
   * The rest of its API description, for OpenRPC: summary, tags, examples, errors, … The codes
   * of the `errors` written here are kept in the definition's type ({@link isDeclaredError}).
   */
  readonly docs?: MethodDocsOf<E>;
}

/** Options of {@link notification}. */
export interface NotificationOptions<P extends MaybeSchema> {
  /** Schema of the params. */
  readonly params?: P;
  /** Parameter names in positional order (read from an object schema when omitted). */
  readonly paramNames?: readonly string[];
  /** Description for OpenRPC. */
  readonly description?: string;
  /** The rest of its API description, for OpenRPC: summary, tags, examples, errors, … */
  readonly docs?: MethodDocs;
}

/** Options of {@link subscription}. */
export interface SubscriptionOptions<P extends MaybeSchema, I extends MaybeSchema> {
  /** Schema of the params. */
  readonly params?: P;
  /** Schema of each pushed item. */
  readonly item?: I;
  /** Parameter names in positional order (read from an object schema when omitted). */
  readonly paramNames?: readonly string[];
  /** Description for OpenRPC. */
  readonly description?: string;
}
/**
 * Declares a method. The codes of the errors its `docs` declare are kept in its type, so a caller
 * can narrow a failure to them with {@link isDeclaredError}.
 *
 * @param options - param and result schemas, names, description, docs
 * @returns the definition
 * @example
 * ```ts
 * const add = method({ params: v.tuple([v.number(), v.number()]), result: v.number() });
 * const withdraw = method({
 *   params: v.tuple([v.number()]),
 *   result: v.number(),
 *   docs: { errors: [{ code: 4001, message: 'Insufficient funds' }] },
 * });
 * ```
 */
export function method<
  P extends MaybeSchema = undefined,
  R extends MaybeSchema = undefined,
  const E extends readonly MethodError[] = readonly [],
>(options: MethodOptions<P, R, E> = {}): MethodDefinition<P, R, NoInfer<E>> {
  // NoInfer: inside defineContract, the expected return type (a MethodDefinition with any errors)
  // would otherwise widen E of a method that declares none to every code.
  return Object.freeze({
    kind: 'method',
    params: options.params as P,
    result: options.result as R,
    paramNames: options.paramNames ?? paramNamesOf(options.params),
    description: options.description,
    ...(options.docs === undefined ? {} : { docs: options.docs }),
  });
}

/**
 * Declares a notification.
 *
 * @param options - param schema, names, description
 * @returns the definition
 * @example
 * ```ts
 * const log = notification({ params: v.object({ message: v.string() }) });
 * ```
 */
export function notification<P extends MaybeSchema = undefined>(
  options: NotificationOptions<P> = {},
): NotificationDefinition<P> {
  return Object.freeze({
    kind: 'notification',
    params: options.params as P,
    paramNames: options.paramNames ?? paramNamesOf(options.params),
    description: options.description,
    ...(options.docs === undefined ? {} : { docs: options.docs }),
  });
}

/** Options of {@link defineContract}. */
export interface ContractOptions {
  /**
   * The service's name (`"Calculator"`): servers can register its entries fully qualified
   * (`Calculator.add`), see {@link contractName}.
   */
  readonly name?: string;
}

const CONTRACT_NAME: unique symbol = /* @__PURE__ */ Symbol.for(
  '@jsonrpc-kit/core/contractName',
) as never;

/**
 * The name given to a contract by {@link defineContract}, if any.
 *
 * @param contract - a contract
 * @returns its name, or `undefined`
 * @example
 * ```ts
 * contractName(defineContract({ add: method() }, { name: 'Calculator' })); // 'Calculator'
 * ```
 */
export function contractName(contract: Contract): string | undefined {
  return (contract as { [CONTRACT_NAME]?: string })[CONTRACT_NAME];
}

/**
 * Declares a subscription: the server pushes items of the `item` schema until the caller
 * unsubscribes.
 *
 * @param options - param and item schemas, names, description
 * @returns the definition
 * @example
 * ```ts
 * const newHeads = subscription({ params: v.tuple([]), item: v.object({ number: v.string() }) });
 * ```
 */
export function subscription<P extends MaybeSchema = undefined, I extends MaybeSchema = undefined>(
  options: SubscriptionOptions<P, I> = {},
): SubscriptionDefinition<P, I> {
  return Object.freeze({
    kind: 'subscription',
    params: options.params as P,
    item: options.item as I,
    paramNames: options.paramNames ?? paramNamesOf(options.params),
    description: options.description,
  });
}

/**
 * Defines a contract. The object is returned as it is (frozen), with its exact type.
 *
 * @param entries - methods, notifications and subscriptions by name
 * @param options - the service's name
 * @returns the contract
 * @throws TypeError when an entry is not made by `method()`, `notification()` or
 *   `subscription()`, its `paramNames` are empty, not strings, or repeated, or a schema it
 *   was given (`params`, `result`, `item`) is not a Standard Schema
 * @example
 * ```ts
 * const calculator = defineContract({
 *   add: method({ params: v.tuple([v.number(), v.number()]), result: v.number() }),
 *   log: notification({ params: v.object({ message: v.string() }) }),
 * });
 * ```
 */
export function defineContract<const C extends Contract>(entries: C, options?: ContractOptions): C {
  const name = options?.name;
  if (name !== undefined) {
    if (typeof name !== 'string' || name.length === 0) {
      throw new TypeError('A contract name must be a non-empty string');
    }
    // A symbol member: not an entry, skipped by Object.entries.
    Object.defineProperty(entries, CONTRACT_NAME, { value: name });
  }
  for (const [name, entry] of Object.entries(entries)) {
    const kind = entry?.kind;
    if (kind !== 'method' && kind !== 'notification' && kind !== 'subscription') {
      throw new TypeError(
        `Contract entry "${name}" must be made by method(), notification() or subscription()`,
      );
    }
    checkParamNames(entry.paramNames, `Contract entry "${name}"`);
    checkSchema(entry.params, `Contract entry "${name}": params`);
    if (kind === 'method') checkSchema(entry.result, `Contract entry "${name}": result`);
    if (kind === 'subscription') checkSchema(entry.item, `Contract entry "${name}": item`);
  }
  return Object.freeze(entries);
}
