/**
 * Contracts: end-to-end types without code generation. A contract names methods and
 * notifications with their param and result schemas (any Standard Schema). The same object types
 * the server's implementation and the client's proxy, validates at run time on both sides, and
 * describes the API for OpenRPC.
 *
 * @module
 */
import { JsonRpcError } from './errors.js';
import type { JsonRpcParams } from './messages.js';
import { checkSchema, type InferInput, type InferOutput, type StandardSchemaV1 } from './schema.js';

/** A schema, or `undefined` for "not declared". */
export type MaybeSchema = StandardSchemaV1 | undefined;

/**
 * An OpenRPC content descriptor's documentation (a param's or a result's): what a schema cannot
 * say. `schema`, when given, is the JSON Schema the description publishes instead of one derived
 * from the Standard Schema.
 */
export interface ContentDescriptorDocs {
  /** The param's or result's name. */
  readonly name: string;
  /** A short summary. */
  readonly summary?: string;
  /** A longer description. */
  readonly description?: string;
  /** Whether the param must be given. */
  readonly required?: boolean;
  /** Whether the param is deprecated. */
  readonly deprecated?: boolean;
  /** The JSON Schema to publish (it may `$ref` the document's `components/schemas`). */
  readonly schema?: { readonly [key: string]: unknown };
  /** Specification extensions (`x-…`). */
  readonly [extension: string]: unknown;
}

/** Where more documentation is (OpenRPC's External Documentation object). */
export interface ExternalDocs {
  /** Its URL. */
  readonly url: string;
  /** What is there. */
  readonly description?: string;
}

/** A tag for grouping methods (OpenRPC's Tag object). */
export interface MethodTag {
  /** The tag's name. */
  readonly name: string;
  /** Its summary, description, external docs, `x-…` members. */
  readonly [member: string]: unknown;
}

/** An example pairing of params and result (OpenRPC's Example Pairing object). */
export interface MethodExample {
  /** The example's name. */
  readonly name: string;
  /** Its `params` (`[{ name, value }]`), `result`, summary, description. */
  readonly [member: string]: unknown;
}

/** An application error a method may answer (OpenRPC's Error object). */
export interface MethodError {
  /** The error's code. */
  readonly code: number;
  /** Its message. */
  readonly message: string;
  /** Its data. */
  readonly data?: unknown;
}

/**
 * What an API description says about a method or notification beyond its schemas: the members of
 * an OpenRPC method object. The kit does not read it when it serves calls; `rpc.discover`
 * (`@jsonrpc-kit/extensions/openrpc`) publishes it.
 */
export interface MethodDocs {
  /** A short summary. */
  readonly summary?: string;
  /** Tags for grouping. */
  readonly tags?: readonly MethodTag[];
  /** How the description says params are sent (the kit accepts both when it knows the names). */
  readonly paramStructure?: 'by-name' | 'by-position' | 'either';
  /** The params' names, descriptions and published schemas, in positional order. */
  readonly params?: readonly ContentDescriptorDocs[];
  /** The result's name, description and published schema. */
  readonly result?: ContentDescriptorDocs;
  /** Example pairings of params and result. */
  readonly examples?: readonly MethodExample[];
  /** The application errors the method may answer. */
  readonly errors?: readonly MethodError[];
  /** Whether the method is deprecated. */
  readonly deprecated?: boolean;
  /** Where more documentation is. */
  readonly externalDocs?: ExternalDocs;
  /** Any other member of the method object (`links`, `servers`, `x-…`). */
  readonly [member: string]: unknown;
}

/**
 * A method's {@link MethodDocs} with its declared `errors` typed as given: their codes type
 * {@link isDeclaredError}'s narrowing.
 */
export type MethodDocsOf<E extends readonly MethodError[]> = MethodDocs & {
  /** The application errors the method may answer, as declared. */
  readonly errors?: E;
};

/** A method of a contract: a call with an answer. */
export interface MethodDefinition<
  P extends MaybeSchema = MaybeSchema,
  R extends MaybeSchema = MaybeSchema,
  E extends readonly MethodError[] = readonly MethodError[],
> {
  /** Tells methods from notifications. */
  readonly kind: 'method';
  /** Schema of the params (a tuple schema: by position; an object schema: by name). */
  readonly params: P;
  /** Schema of the result. */
  readonly result: R;
  /**
   * Parameter names in positional order, when known: given explicitly, or read from an object
   * schema's keys. A method with names accepts params by name and by position alike.
   */
  readonly paramNames: readonly string[] | undefined;
  /** Human-readable description, used by OpenRPC. */
  readonly description: string | undefined;
  /** The rest of its API description (OpenRPC), when given; its `errors` typed as declared. */
  readonly docs?: MethodDocsOf<E> | undefined;
}

/** A notification of a contract: a call without an answer. */
export interface NotificationDefinition<P extends MaybeSchema = MaybeSchema> {
  /** Tells methods from notifications. */
  readonly kind: 'notification';
  /** Schema of the params. */
  readonly params: P;
  /** As {@link MethodDefinition.paramNames}. */
  readonly paramNames: readonly string[] | undefined;
  /** Human-readable description, used by OpenRPC. */
  readonly description: string | undefined;
  /** The rest of its API description (OpenRPC), when given. */
  readonly docs?: MethodDocs | undefined;
}

/**
 * A subscription of a contract: a call answered with a subscription id, then items pushed as
 * notifications until the caller unsubscribes (the wire shape is a `SubscriptionDialect`'s).
 */
export interface SubscriptionDefinition<
  P extends MaybeSchema = MaybeSchema,
  I extends MaybeSchema = MaybeSchema,
> {
  /** Always `"subscription"`. */
  readonly kind: 'subscription';
  /** Schema of the params. */
  readonly params: P;
  /** Schema of each pushed item. */
  readonly item: I;
  /** As {@link MethodDefinition.paramNames}. */
  readonly paramNames: readonly string[] | undefined;
  /** Human-readable description, used by OpenRPC. */
  readonly description: string | undefined;
}

/** Any entry of a contract. */
export type ContractEntry =
  | MethodDefinition<MaybeSchema, MaybeSchema>
  | NotificationDefinition<MaybeSchema>
  | SubscriptionDefinition<MaybeSchema, MaybeSchema>;

/** A contract: entry names to definitions. */
export type Contract = { readonly [name: string]: ContractEntry };

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
 * The parameter names of an object schema, in declaration order: valibot's `entries`, zod's
 * `shape`, or a JSON Schema's `properties`. `undefined` for any other schema.
 *
 * @param schema - a schema
 * @returns the names, or `undefined`
 * @example
 * ```ts
 * paramNamesOf(v.object({ minuend: v.number(), subtrahend: v.number() })); // ['minuend', 'subtrahend']
 * ```
 */
export function paramNamesOf(schema: unknown): readonly string[] | undefined {
  if (typeof schema !== 'object' || schema === null) return undefined;
  const s = schema as { entries?: unknown; shape?: unknown; type?: unknown; properties?: unknown };
  const keys = s.entries ?? s.shape ?? (s.type === 'object' ? s.properties : undefined);
  return typeof keys === 'object' && keys !== null && !Array.isArray(keys)
    ? Object.freeze(Object.keys(keys))
    : undefined;
}

/** How a schema takes params: by name (an object schema) or by position (a tuple or array schema). */
export type ParamsShape = 'byName' | 'byPosition';

/** Schema `type`s (valibot, zod 4, JSON Schema) that take params by position. */
const POSITIONAL_TYPES: ReadonlySet<unknown> = /* @__PURE__ */ new Set([
  'tuple',
  'strict_tuple',
  'loose_tuple',
  'tuple_with_rest',
  'array',
]);

/**
 * How a schema takes params: `"byName"` for an object schema (see {@link paramNamesOf}),
 * `"byPosition"` for a tuple or array schema (valibot's and zod's tuples and arrays, a JSON Schema
 * of `type: "array"`), `undefined` for any other schema. Absent params are read as the empty value
 * of this shape (`{}` or `[]`).
 *
 * @param schema - a schema
 * @returns the shape, or `undefined` when the schema does not tell
 * @example
 * ```ts
 * paramsShapeOf(v.tuple([v.string()])); // 'byPosition'
 * paramsShapeOf(v.object({ id: v.string() })); // 'byName'
 * ```
 */
export function paramsShapeOf(schema: unknown): ParamsShape | undefined {
  if (typeof schema !== 'object' || schema === null) return undefined;
  if (paramNamesOf(schema) !== undefined) return 'byName';
  const s = schema as {
    type?: unknown;
    items?: unknown;
    prefixItems?: unknown;
    def?: { type?: unknown };
    _def?: { typeName?: unknown };
  };
  const zod3 = s._def?.typeName;
  return POSITIONAL_TYPES.has(s.type) ||
    POSITIONAL_TYPES.has(s.def?.type) ||
    zod3 === 'ZodTuple' ||
    zod3 === 'ZodArray' ||
    Array.isArray(s.items) ||
    Array.isArray(s.prefixItems)
    ? 'byPosition'
    : undefined;
}

/**
 * Checks a list of parameter names: an array of distinct, non-empty strings.
 *
 * @param names - the names given, or `undefined`
 * @param owner - what the names belong to, for the message (`Method "add"`)
 * @returns the names, frozen, or `undefined` when none were given
 * @throws TypeError naming the owner when a name is empty, not a string, or repeated
 * @example
 * ```ts
 * checkParamNames(['a', 'b'], 'Method "add"'); // ['a', 'b']
 * checkParamNames(['a', 'a'], 'Method "add"'); // throws TypeError
 * ```
 */
export function checkParamNames(
  names: readonly string[] | undefined,
  owner: string,
): readonly string[] | undefined {
  if (names === undefined) return undefined;
  if (!Array.isArray(names)) throw new TypeError(`${owner}: paramNames must be an array`);
  const seen = new Set<string>();
  for (const name of names) {
    if (typeof name !== 'string' || name.length === 0) {
      throw new TypeError(`${owner}: every parameter name must be a non-empty string`);
    }
    if (seen.has(name)) throw new TypeError(`${owner}: parameter name "${name}" is repeated`);
    seen.add(name);
  }
  return Object.isFrozen(names) ? names : Object.freeze([...names]);
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

/** The names of a contract's methods. */
export type MethodNames<C extends Contract> = {
  [K in keyof C]: C[K] extends MethodDefinition<any, any> ? K : never;
}[keyof C] &
  string;

/** The names of a contract's notifications. */
export type NotificationNames<C extends Contract> = {
  [K in keyof C]: C[K] extends NotificationDefinition<any> ? K : never;
}[keyof C] &
  string;

/** The names of a contract's subscriptions. */
export type SubscriptionNames<C extends Contract> = {
  [K in keyof C]: C[K] extends SubscriptionDefinition<any, any> ? K : never;
}[keyof C] &
  string;

/** What a producer yields (the item schema's input type). */
export type ItemInput<E extends ContractEntry> =
  E extends SubscriptionDefinition<any, infer I>
    ? I extends StandardSchemaV1
      ? InferInput<I>
      : unknown
    : never;

/** What a subscriber receives (the item schema's output type). */
export type ItemOutput<E extends ContractEntry> =
  E extends SubscriptionDefinition<any, infer I>
    ? I extends StandardSchemaV1
      ? InferOutput<I>
      : unknown
    : never;

/** What a caller passes as params (the params schema's input type). */
export type ParamsInput<E extends ContractEntry> = E['params'] extends StandardSchemaV1
  ? InferInput<E['params']>
  : JsonRpcParams | undefined;

/** What a handler receives as params (the params schema's output type). */
export type ParamsOutput<E extends ContractEntry> = E['params'] extends StandardSchemaV1
  ? InferOutput<E['params']>
  : JsonRpcParams | undefined;

/** What a handler returns (the result schema's input type). */
export type ResultInput<E extends ContractEntry> =
  E extends MethodDefinition<any, infer R>
    ? R extends StandardSchemaV1
      ? InferInput<R>
      : unknown
    : undefined;

/** What a caller receives (the result schema's output type). */
export type ResultOutput<E extends ContractEntry> =
  E extends MethodDefinition<any, infer R>
    ? R extends StandardSchemaV1
      ? InferOutput<R>
      : unknown
    : undefined;

/** The codes of the errors a method declares in its `docs` (`never` when it declares none). */
export type DeclaredErrorCode<E extends ContractEntry> = E extends {
  /** A method: only methods declare errors. */
  readonly kind: 'method';
}
  ? NonNullable<NonNullable<E['docs']>['errors']>[number]['code']
  : never;

/** A {@link JsonRpcError} whose code is one a method declares (or the one given). */
export type DeclaredError<Code extends number = number> = JsonRpcError & {
  /** One of the method's declared codes. */
  readonly code: Code;
};

/**
 * Whether an error is a {@link JsonRpcError} whose code the method declares in its `docs.errors`
 * (or is `code`, one of them). The check is made at run time against the declared codes; the
 * type narrows `error.code` to them, so a `switch` on it sees only the declared errors.
 *
 * @param entry - the method's definition (`contract.withdraw`)
 * @param error - what the call rejected with
 * @param code - one declared code, to test for that error only
 * @returns whether the error is one the method declares
 * @example
 * ```ts
 * try {
 *   await api.withdraw(100);
 * } catch (error) {
 *   if (isDeclaredError(contract.withdraw, error)) error.code; // 4001
 *   else throw error;
 * }
 * ```
 */
export function isDeclaredError<
  E extends ContractEntry,
  const Code extends DeclaredErrorCode<E> = DeclaredErrorCode<E>,
>(entry: E, error: unknown, code?: Code): error is DeclaredError<Code> {
  if (!(error instanceof JsonRpcError)) return false;
  if (code !== undefined && error.code !== code) return false;
  const declared = entry.kind === 'method' ? entry.docs?.errors : undefined;
  return declared?.some((e) => e.code === error.code) ?? false;
}
