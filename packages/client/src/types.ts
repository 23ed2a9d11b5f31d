/// <reference lib="esnext.disposable" preserve="true" />
/**
 * The client's public shapes: the {@link Client} interface and its calls (its options are in
 * `options.ts`).
 *
 * @module
 */
import type { Contract, JsonRpcParams, Middleware, Peer, RequestOptions } from '@jsonrpc-kit/core';
import type { BatchBuilder, BatchEntry, BatchResults } from './batch.js';
import type { ClientContractOptions, ContractStub } from './contract-stub.js';
import type { PromisifiedStub, StubOptions } from './stub.js';
import type { SubscribeOptions, Subscription } from './subscription-handle.js';

export type { AutoBatchOptions, ClientOptions } from './options.js';

/**
 * A JSON-RPC client over one transport. See {@link createClient}.
 *
 * @example
 * ```ts
 * const client: Client = createClient(transport);
 * const answer = await client.request<string>('echo', ['hi']);
 * ```
 */
export interface Client<V = unknown> extends Peer {
  /**
   * Sends a request and waits for its answer.
   *
   * @param method - the method name
   * @param params - the params (array: by position, object: by name)
   * @param options - `signal`, `timeout` (overrides the client's default; `0` waits forever),
   *   `onProgress`, `resetTimeoutOnProgress`, and `deadline` and `meta`, which travel with the
   *   call (in `params._meta` on duplex transports, in headers over HTTP)
   * @returns the result
   * @throws JsonRpcError (the wire error's class, by `code`), TimeoutError (`TIMEOUT`),
   *   AbortError (`ABORTED`), ConnectionClosedError (`CONNECTION_CLOSED`), TransportError
   *   (`TRANSPORT_ERROR`), ProtocolError (`PROTOCOL_ERROR`, a malformed answer); a TypeError when
   *   the params cannot be serialized
   */
  request<T = unknown>(
    method: string,
    params?: JsonRpcParams,
    options?: ClientRequestOptions<V>,
  ): Promise<T>;
  /**
   * Sends a notification.
   *
   * @param method - the method name
   * @param params - the params
   * @returns resolves once the transport took it
   * @throws ConnectionClosedError (`CONNECTION_CLOSED`), TransportError (`TRANSPORT_ERROR`)
   */
  notify(method: string, params?: JsonRpcParams): Promise<void>;
  /**
   * Subscribes to server push (duplex transports), in the client's `subscriptionDialect`.
   * Items reach `onItem` or a `for await` loop; after the transport reconnects the subscription
   * is made again with the same params (the handle stays, `onResubscribed` is told).
   *
   * @param name - the subscription's name (`"newHeads"`)
   * @param params - its params
   * @param options - `onItem`, `onError`, `onResubscribed`, `signal`, `resubscribe`, `item` schema
   * @returns the handle; `handle.ready` resolves with the server's id
   * @throws never; a refusal rejects `ready` and reaches `onError` as a `SubscriptionError`
   *   (`SUBSCRIPTION_REFUSED`)
   */
  subscribe<I = unknown>(
    name: string,
    params?: JsonRpcParams,
    options?: SubscribeOptions<I>,
  ): Subscription<I>;
  /**
   * Sends several calls as one batch message and settles each one on its own, matched by id
   * whatever order the answers come in.
   *
   * @param build - returns the entries, made with the builder
   * @param options - `signal` and `timeout` for every request of the batch
   * @returns one settled result per request entry, in order; notifications get no slot
   * @throws ConnectionClosedError (`CONNECTION_CLOSED`) when closed, AbortError (`ABORTED`) when
   *   the signal is already aborted, TypeError when params cannot be serialized; nothing is sent
   *   then. A batch of notifications only rejects with the transport's error.
   */
  batch<const T extends readonly BatchEntry<any>[]>(
    build: (b: BatchBuilder) => T,
    options?: RequestOptions,
  ): Promise<BatchResults<T>>;
  /**
   * Adds a middleware around every `request()` and `notify()` (and the proxies' calls; not the
   * members of `batch()`): requests run through the chain in registration order, their results
   * come back in reverse. For auth tokens, logging, tracing, retries ({@link retry}).
   *
   * @param middleware - `(call, next) => result`; `call.params` and `call.options` may be
   *   replaced before `next()`
   * @returns a function that removes it
   * @throws TypeError when `middleware` is not a function
   * @example
   * ```ts
   * client.use(async (call, next) => {
   *   call.params = { ...(call.params as object), token: 'secret' };
   *   return next();
   * });
   * ```
   */
  use(middleware: Middleware<ClientCall>): () => void;
  /**
   * A typed proxy over a contract; results are validated against its result schemas.
   *
   * @param contract - the contract
   * @param options - `prefix` for the wire names, `params` style
   * @returns the proxy
   * @throws ResultValidationError (`PROTOCOL_ERROR`, from a call) when a result breaks the schema
   */
  contract<C extends Contract>(contract: C, options?: ClientContractOptions): ContractStub<C>;
  /**
   * A schema-free stub typed by an interface: `api.add(1, 2)` sends `add` with `[1, 2]`.
   *
   * @param options - `prefix` for the wire names
   * @returns the proxy
   */
  stub<T extends object>(options?: StubOptions): PromisifiedStub<T>;
  /** How many calls wait for an answer. */
  readonly pending: number;
  /**
   * Closes the client and its transport; every waiting call rejects with a
   * `ConnectionClosedError`. Idempotent.
   *
   * @param reason - why, passed to the transport
   * @returns resolves once closed
   */
  close(reason?: unknown): Promise<void>;
  /** Resolves when the client has closed, for whatever reason. */
  readonly closed: Promise<void>;
  /**
   * `close()`, for `await using client = createClient(transport)`.
   *
   * @returns resolves once closed
   */
  [Symbol.asyncDispose](): Promise<void>;
}

/**
 * Per-call options of {@link Client.request}: core's `RequestOptions`, with `onProgress` typed by
 * the client's profile (`McpProgress` for `mcpProfile`).
 *
 * @example
 * ```ts
 * const options: ClientRequestOptions<McpProgress> = { onProgress: (p) => console.log(p.progress) };
 * ```
 */
export interface ClientRequestOptions<V = unknown> extends RequestOptions {
  /** Receives the progress the handler reports; see core's `RequestOptions.onProgress`. */
  readonly onProgress?: ((value: V) => void) | undefined;
}

/**
 * One outgoing call as the client's middleware sees it.
 *
 * @example
 * ```ts
 * const logCalls = async (call: ClientCall, next: () => Promise<unknown>) => {
 *   console.log('→', call.kind, call.method);
 *   return next();
 * };
 * ```
 */
export interface ClientCall {
  /** A request (answered) or a notification. */
  readonly kind: 'request' | 'notification';
  /** The method. */
  readonly method: string;
  /** The params; a middleware may replace them before `next()`. */
  params: JsonRpcParams | undefined;
  /** The per-call options; a middleware may replace them before `next()` (notifications: none). */
  options: RequestOptions;
  /** Data shared by the middleware of one call. */
  readonly state: Map<string | symbol, unknown>;
}
