/**
 * The types of a contract: the definitions `method()`, `notification()` and `subscription()` make,
 * the contract they are gathered in, and what each entry's schemas infer (the names of its methods,
 * notifications and subscriptions; params, results and items as sent and as received).
 *
 * @module
 */
import type { JsonRpcParams } from './messages.js';
import type { MethodDocs, MethodDocsOf, MethodError } from './method-docs.js';
import type { InferInput, InferOutput, StandardSchemaV1 } from './schema.js';

/** A schema, or `undefined` for "not declared". */
export type MaybeSchema = StandardSchemaV1 | undefined;

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
