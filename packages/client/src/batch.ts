/**
 * Explicit batches: the builder handed to `client.batch()` and the types of its settled results.
 *
 * @module
 */
import type { JsonRpcError, JsonRpcParams, LocalError } from '@jsonrpc-kit/core';

/** A request entry of a batch; its answer gets a slot in the results. */
export interface BatchRequest<T = unknown> {
  /** Always `"request"`. */
  readonly kind: 'request';
  /** The method name. */
  readonly method: string;
  /** The params, when any. */
  readonly params: JsonRpcParams | undefined;
  /** Type-level only: the result type. Never set at run time. */
  readonly '~result'?: T;
}

/** A notification entry of a batch; it gets no slot in the results. */
export interface BatchNotification {
  /** Always `"notification"`. */
  readonly kind: 'notification';
  /** The method name. */
  readonly method: string;
  /** The params, when any. */
  readonly params: JsonRpcParams | undefined;
}

/** Any entry of a batch: a request (typed by its result `T`) or a notification. */
export type BatchEntry<T = unknown> = BatchRequest<T> | BatchNotification;

/**
 * The settled outcome of one request of a batch. A failure is a wire error (`JsonRpcError`, a
 * numeric `code`) or a local one (`LocalError`: timeout, abort, closed connection, transport,
 * protocol; a string `code`), so `error.code` can be matched on without a guard.
 *
 * @example
 * ```ts
 * const [sum] = await client.batch((b) => [b.request<number>('add', [1, 2])]);
 * if (!sum.ok && sum.error.code === -32601) console.log('no such method');
 * ```
 */
export type BatchResult<T> =
  | {
      /** The request succeeded. */
      readonly ok: true;
      /** Its result. */
      readonly value: T;
    }
  | {
      /** The request failed. */
      readonly ok: false;
      /** Why: the wire error's class, a timeout, an abort or a connection error; match on `code`. */
      readonly error: JsonRpcError | LocalError;
    };

/**
 * The results of a tuple of batch entries: a {@link BatchResult} per request, notifications skipped.
 */
type TupleResults<T extends readonly unknown[], Acc extends unknown[]> = T extends readonly [
  infer Head,
  ...infer Rest,
]
  ? Head extends BatchRequest<infer V>
    ? TupleResults<Rest, [...Acc, BatchResult<V>]>
    : TupleResults<Rest, Acc>
  : Acc;

/**
 * The result type of a batch entry: `T` for a request, `never` for a notification.
 */
type EntryResult<E> = E extends BatchRequest<infer V> ? V : never;

/**
 * The results of a batch: one {@link BatchResult} per request entry, in the order of the entries;
 * notification entries get no slot. A tuple when the entries are a tuple, else an array.
 *
 * @example
 * ```ts
 * const [sum, name] = await client.batch((b) => [
 *   b.request<number>('add', [1, 2]),
 *   b.notify('log'),
 *   b.request<string>('name'),
 * ]); // [BatchResult<number>, BatchResult<string>]
 * ```
 */
export type BatchResults<T extends readonly BatchEntry<any>[]> = number extends T['length']
  ? BatchResult<EntryResult<T[number]>>[]
  : TupleResults<T, []>;

/** Builds the entries of a batch. Handed to the callback of `client.batch()`. */
export interface BatchBuilder {
  /**
   * A request entry.
   *
   * @param method - the method name
   * @param params - the params
   * @returns the entry; its result gets a slot in the batch results
   */
  request<T = unknown>(method: string, params?: JsonRpcParams): BatchRequest<T>;
  /**
   * A notification entry.
   *
   * @param method - the method name
   * @param params - the params
   * @returns the entry; it gets no slot in the batch results
   */
  notify(method: string, params?: JsonRpcParams): BatchNotification;
}

/**
 * The batch builder. Entries are plain frozen objects, so a builder can be shared.
 *
 * @example
 * ```ts
 * const entries = [batchBuilder.request<number>('add', [1, 2]), batchBuilder.notify('log')];
 * ```
 */
export const batchBuilder: BatchBuilder = Object.freeze({
  request: <T = unknown>(method: string, params?: JsonRpcParams): BatchRequest<T> => ({
    kind: 'request',
    method,
    params,
  }),
  notify: (method: string, params?: JsonRpcParams): BatchNotification => ({
    kind: 'notification',
    method,
    params,
  }),
});
