/// <reference lib="esnext.disposable" preserve="true" />
/**
 * The client's public shapes: its options and the {@link Client} interface.
 *
 * @module
 */
import type {
  Codec,
  Contract,
  ErrorInfo,
  ErrorLevel,
  IncomingNotificationHandler,
  IncomingRequestHandler,
  JsonRpc1,
  JsonRpcId,
  JsonRpcParams,
  Middleware,
  Peer,
  Profile,
  RequestOptions,
  ResponseChecker,
  SubscriptionDialect,
} from '@jsonrpc-kit/core';
import type { BatchBuilder, BatchEntry, BatchResults } from './batch.js';
import type { ContractProxy, UseOptions } from './contract-proxy.js';
import type { PromisifiedProxy, ProxyOptions } from './proxy.js';
import type { SubscribeOptions, Subscription } from './subscription-handle.js';

/**
 * Options of auto-batching.
 *
 * @example
 * ```ts
 * const client = createClient(transport, { batch: { wait: 5, maxSize: 50 } });
 * ```
 */
export interface AutoBatchOptions {
  /** Milliseconds to collect calls; `0` collects the calls of the same tick. @default 0 */
  readonly wait?: number;
  /** Most messages in one batch; a full batch is sent at once. @default 100 */
  readonly maxSize?: number;
}

/**
 * Options of {@link createClient}.
 *
 * @example
 * ```ts
 * const options: ClientOptions = { requestTimeout: 10_000, sendCancel: true, batch: { wait: 2 } };
 * ```
 */
export interface ClientOptions<V = unknown> {
  /**
   * Default per-call timeout in milliseconds, overridable per call; `0` or `Infinity` waits
   * forever. A call past it rejects with a `TimeoutError` (`TIMEOUT`). Left unset, the default
   * is a safety net that fails the call but leaves a send under way alone, checked every tenth of
   * it (a call fails 30 to 33 s after it started; no timer per call, and it does not keep the
   * process alive); a timeout set here or per call is exact and also aborts the send (the
   * `signal` given to `transport.send()`).
   *
   * @default 30000 ({@link DEFAULT_TIMEOUT})
   */
  readonly requestTimeout?: number;
  /**
   * The params member that carries a call's `deadline` and `meta` (see {@link Client.request})
   * on transports that do not carry them in headers.
   * @default DEFAULT_CONTEXT_MEMBER ("_meta", as MCP)
   */
  readonly contextMember?: string;
  /**
   * Makes request ids. An id that is not a string or a finite number is refused locally: the
   * call rejects with a TypeError and nothing is sent.
   * @default sequential numbers 1, 2, 3…
   */
  readonly generateId?: () => JsonRpcId;
  /**
   * How cancellation and progress travel on the wire (core's `defaultProfile`, `lspProfile`,
   * `mcpProfile`, or your own). Incoming cancellations (of calls `onRequest` is serving) follow
   * it: the call's `ctx.signal` aborts and it is answered with the profile's code at once, or not
   * at all when its cancellation has `answer: false`. `request(…, { onProgress })` puts the
   * profile's progress token in the params; handlers report with `ctx.progress`.
   *
   * @default defaultProfile
   */
  readonly profile?: Profile<V>;
  /**
   * Sends the profile's cancel notification when a call times out or is aborted after it was
   * sent.
   *
   * @default false
   */
  readonly sendCancel?: boolean;
  /**
   * Auto-batching: calls (and notifications) made in the same tick, or within `wait` ms, go out
   * as one batch of at most `maxSize` messages. A lone call goes out as a single message.
   *
   * @default false
   */
  readonly batch?: boolean | AutoBatchOptions;
  /**
   * Answers requests the other side sends (duplex transports). `ctx.signal` aborts when the other
   * side cancels the call or the client closes.
   *
   * @default answers -32601
   */
  readonly onRequest?: IncomingRequestHandler;
  /**
   * Receives notifications the other side sends, except the items of `subscribe()`'s
   * subscriptions. @default ignores them
   */
  readonly onNotification?: IncomingNotificationHandler;
  /**
   * How `subscribe()` talks to the server: core's `ethereumSubscriptions`,
   * `genericSubscriptions`, or one made by `createSubscriptionDialect()`.
   * @default genericSubscriptions
   */
  readonly subscriptionDialect?: SubscriptionDialect;
  /**
   * Receives what goes wrong outside a call: malformed or unknown answers (a `ProtocolError`),
   * the transport's non-fatal errors, failing handlers, sends nobody waits on. `info` tells the
   * event's `kind` and `level` (see core's `ErrorKind`) and the call's `method` and `id` when
   * known. Events below {@link ClientOptions.onErrorLevel} are not passed on. Its throws are
   * ignored.
   *
   * @param error - what failed
   * @param info - the event's kind, level, method and id
   */
  readonly onError?: (error: Error, info: ErrorInfo) => void;
  /**
   * The least level passed to `onError`; `"debug"` passes routine events too (a cancel
   * notification or an answer that could not be sent because the connection had closed).
   * @default DEFAULT_ON_ERROR_LEVEL ("warn")
   */
  readonly onErrorLevel?: ErrorLevel;
  /**
   * Values beyond JSON: encodes params on the way out and decodes results on the way in (before
   * a contract's result schema checks them); ids, errors and the envelope are untouched. Give the
   * server the same codec. `losslessNumbers` (from core) keeps big integers exact.
   * @default none
   */
  readonly codec?: Codec;
  /**
   * Speak JSON-RPC 1.0: pass core's `jsonrpc1` (`createClient(transport, { jsonrpc1 })`).
   * Requests go without `jsonrpc`, params by position only (params by name reject with a
   * TypeError), notifications as requests with `id: null`, and answers are read with `result`
   * beside `error` (one `null`). JSON-RPC 1.0 has no batches: `batch()` rejects with a TypeError
   * and the `batch` option throws a RangeError. Cancel notices go out as 1.0 notifications. The 1.0 code comes with
   * the value: a client without it ships none.
   * @default undefined (2.0)
   */
  readonly jsonrpc1?: JsonRpc1;
  /**
   * Response checks to change, one named rule each, made by core's `responseChecks(rules)`; the
   * rest stay strict (core's `STRICT_RESPONSE_CHECKS`). An answer that breaks a rule fails its
   * call with a `ProtocolError` and is reported. `responseChecks({ requireExclusiveResultOrError:
   * false })` accepts `"error": null` beside `result`. The checks' code comes with the value: a
   * client without it ships none.
   * @default strict
   */
  readonly responseChecks?: ResponseChecker;
}

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
  contract<C extends Contract>(contract: C, options?: UseOptions): ContractProxy<C>;
  /**
   * A schema-free proxy typed by an interface: `api.add(1, 2)` sends `add` with `[1, 2]`.
   *
   * @param options - `prefix` for the wire names
   * @returns the proxy
   */
  proxy<T extends object>(options?: ProxyOptions): PromisifiedProxy<T>;
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
