/// <reference lib="esnext.disposable" preserve="true" />
/**
 * The public shapes of the server: options, the server and its connections, handlers, contexts,
 * middleware and the method registry's descriptors.
 *
 * @module
 */
import type {
  CancellationProtocol,
  Codec,
  ConnectionHandler,
  ConnectionLike,
  Contract,
  ErrorInfo as CoreErrorInfo,
  ErrorLevel,
  IncomingNotificationHandler,
  IncomingRequestHandler,
  JsonRpcErrorObject,
  JsonRpcId,
  MessageHandler,
  MethodDefinition,
  MethodNames,
  NotificationDefinition,
  NotificationNames,
  ParamsOutput,
  Peer,
  ResultInput,
  StandardSchemaV1,
  Transport,
  TransportContext,
} from '@jsonrpc-kit/core';

/**
 * What {@link ServerOptions.onError} is told about an event: its `kind` and `level` (see core's
 * `ErrorKind` for the table), the call's `method` and `id` when known, and whether it belongs to a
 * notification.
 *
 * @example
 * ```ts
 * createServer({
 *   onError: (error, info) => {
 *     if (info.level === 'error') console.error(info.kind, info.method, error);
 *   },
 * });
 * ```
 */
export interface ErrorInfo extends CoreErrorInfo {
  /** `true` when the event belongs to a notification (nobody is answered). */
  readonly notification: boolean;
}

/** Options of {@link createServer}. Every limit has an exported `DEFAULT_*` constant. */
export interface ServerOptions {
  /**
   * Largest accepted text, in UTF-8 bytes, checked before parsing. A larger request is answered
   * -32004 with its own id (found by a scan of the text's top level; `null` for a batch or text
   * that is not an object), a larger notification is not answered; both are told to `onError`.
   * Transport adapters adopt this limit unless given their own (the adapter's limit then applies
   * to its messages); see the limits table in the README.
   * @default DEFAULT_MAX_REQUEST_BYTES (1 MiB); unset, stdio and stream transports keep their
   *   own default (16 MiB)
   */
  readonly maxRequestBytes?: number;
  /**
   * Longest accepted batch. A longer batch is answered with one -32003 error (id `null`).
   * @default DEFAULT_MAX_BATCH_SIZE (100)
   */
  readonly maxBatchSize?: number;
  /**
   * How many members of one batch run at once.
   * @default DEFAULT_BATCH_CONCURRENCY (16)
   */
  readonly batchConcurrency?: number;
  /**
   * How many calls run at once on one connection; for `handle()`, the bound is shared by every
   * `handle()` call of the server. Beyond it calls wait in a queue of {@link ServerOptions.maxQueue}.
   * @default DEFAULT_MAX_CONCURRENCY (64)
   */
  readonly maxConcurrency?: number;
  /**
   * How many calls may wait beyond {@link ServerOptions.maxConcurrency} (per connection, and once
   * for all `handle()` calls); past it, calls are answered -32002.
   * @default DEFAULT_MAX_QUEUE (1024)
   */
  readonly maxQueue?: number;
  /**
   * Who a `handle()` exchange (one HTTP request, say) comes from, so that the shared limit is
   * fair across clients: each client runs at most {@link ServerOptions.maxConcurrencyPerClient}
   * calls and queues at most {@link ServerOptions.maxQueuePerClient}, and freed slots go to the
   * waiting clients in turn. Return `undefined` to count an exchange with no client (first come,
   * first served). Behind a reverse proxy, key on the forwarded address or on `ctx.auth`.
   * `false` turns fairness off. Connections (`connect()`) have limits of their own already.
   * @default defaultClientKey (the remote address)
   */
  readonly clientKey?: ((context: TransportContext) => string | undefined) | false;
  /**
   * How many `handle()` calls of one client (see {@link ServerOptions.clientKey}) run at once.
   * @default three quarters of `maxConcurrency`, rounded up (48 with the defaults), so the last
   *   quarter is always left to other clients
   */
  readonly maxConcurrencyPerClient?: number;
  /**
   * How many `handle()` calls of one client may wait; past it, its calls are answered -32002.
   * @default a quarter of `maxQueue`, rounded up (256 with the defaults)
   */
  readonly maxQueuePerClient?: number;
  /**
   * Default handler deadline in milliseconds (a method's own `timeout` wins). When it passes, the
   * call is answered -32005 and `ctx.signal` is aborted. `0` or absent: no deadline.
   * @default 0
   */
  readonly timeout?: number;
  /**
   * Default deadline of `connection.request()` to the peer, in milliseconds. `0` waits forever.
   * @default 0
   */
  readonly requestTimeout?: number;
  /**
   * Whether a handler failure that is not a `JsonRpcError` shows its message (and stack, in
   * `data`) on the wire. Off, it is answered -32603 "Internal error" and nothing else.
   * @default false
   */
  readonly exposeErrorDetails?: boolean;
  /**
   * How cancellation travels on connections, or `false` to turn it off.
   * @default defaultCancellation (`$/cancelRequest` with `{ id }`, answered -32001)
   */
  readonly cancellation?: CancellationProtocol | false;
  /**
   * Told of failures nobody is answered about (notification handlers, invalid notifications,
   * transport errors, answers that could not be sent) and of unexpected handler failures (-32603),
   * each with its `kind` and `level` in `info`. Events below {@link ServerOptions.onErrorLevel}
   * are not passed on. Its own throws are ignored.
   *
   * @param error - what failed (an `Error`, or whatever a handler threw)
   * @param info - the event's kind, level, method, id, and whether it was a notification
   */
  readonly onError?: (error: unknown, info: ErrorInfo) => void;
  /**
   * The least level passed to `onError`. At the default, routine events such as a notification
   * for an unknown method (`$/setTrace`) or an answer to a peer that just left are not passed on;
   * `"debug"` passes everything.
   * @default DEFAULT_ON_ERROR_LEVEL ("warn")
   */
  readonly onErrorLevel?: ErrorLevel;
  /**
   * Values beyond JSON: decodes params before name mapping and schema validation (schemas see
   * decoded values) and encodes results. Envelope and ids are never touched. Give the client the
   * same codec. `losslessNumbers` (from core) keeps big integers exact as plain JSON numbers.
   * @default none: `JSON.parse` and `JSON.stringify`
   */
  readonly codec?: Codec;
  /**
   * Accept JSON-RPC 1.0 beside 2.0: a request without `jsonrpc` (params by position only,
   * `id: null` for a notification) is answered in 1.0 form (`result` and `error`, one `null`);
   * a 2.0 request is answered in 2.0 form.
   * @default false
   */
  readonly jsonrpc1?: boolean;
  /**
   * The answer to params that are neither an array nor an object: `"invalid-params"` (-32602) or
   * `"invalid-request"` (-32600), as some compliance suites expect.
   * @default "invalid-params"
   */
  readonly paramsViolation?: 'invalid-params' | 'invalid-request';
  /**
   * Maps what a handler threw (anything but a `JsonRpcError`, which passes through) to the error
   * object to answer. Return `undefined` for the default -32603; its throws and malformed answers
   * are reported and give the default too. Runs after `onError` is told.
   *
   * @param error - what the handler threw
   * @param call - the call's method and id
   * @returns the error object, or `undefined`
   */
  readonly errorHandler?: (
    error: unknown,
    call: { readonly method: string; readonly id: JsonRpcId },
  ) => JsonRpcErrorObject | undefined;
  /**
   * System extensions (`rpc.*` methods): `false` switches them off as a whole, so
   * `registerSystem` registers nothing and every `rpc.*` call is -32601.
   * @default true
   */
  readonly systemMethods?: boolean;
  /**
   * Serve `rpc.listMethods`: the names of the methods (not notifications, not `rpc.*`), in
   * registration order. Off by default: a public endpoint need not list its API.
   * @default false
   */
  readonly listMethods?: boolean;
  /**
   * Accept batches. `false` answers any batch with one -32600 (id `null`) saying batches are not
   * accepted, and runs none of its members.
   * @default true
   */
  readonly batches?: boolean;
}

/** What a handler gets besides its params. */
export interface HandlerContext {
  /** Aborted on cancellation, timeout, or the connection closing. */
  readonly signal: AbortSignal;
  /** The request's id; `undefined` for notifications. */
  readonly id: JsonRpcId | undefined;
  /** The method called. */
  readonly method: string;
  /** Facts about the transport (headers, remote address, …). */
  readonly transport: TransportContext;
  /** The other side of a duplex connection (set on `connect()`), to notify or call it back. */
  readonly peer: Peer | undefined;
}

/** What a middleware gets: the handler's context, plus the params and a place for its data. */
export interface MiddlewareContext extends HandlerContext {
  /** The params; a middleware may replace them before calling `next()`. */
  params: unknown;
  /** `true` for a notification (its result is dropped). */
  readonly notification: boolean;
  /** Data shared by the middleware of one call. */
  readonly state: Map<string | symbol, unknown>;
}

/**
 * Handles a method call: returns the result (or a promise of it), or throws a `JsonRpcError`.
 *
 * @param params - the params, after name mapping and validation
 * @param ctx - the call's context
 * @returns the result
 * @throws JsonRpcError to answer with that error; anything else is answered -32603
 * @example
 * ```ts
 * const add: Handler<[number, number], number> = ([a, b]) => a + b;
 * ```
 */
export type Handler<P = any, R = unknown> = (params: P, ctx: HandlerContext) => R | Promise<R>;

/**
 * Handles a notification. Its failures go to `onError`; nobody is answered.
 *
 * @param params - the params, after name mapping and validation
 * @param ctx - the call's context (`id` is `undefined`)
 * @example
 * ```ts
 * server.notification('log', (params: { message: string }) => console.log(params.message));
 * ```
 */
export type NotificationHandler<P = any> = (params: P, ctx: HandlerContext) => void | Promise<void>;

/**
 * Wraps every call: runs in registration order on the way in and in reverse on the way out.
 * Return without calling `next()` to short-circuit; throw a `JsonRpcError` to answer with it.
 *
 * @param ctx - the call's context; `params` may be replaced before `next()`
 * @param next - runs the rest of the chain and resolves to the result
 * @returns the result
 * @example
 * ```ts
 * server.use(async (ctx, next) => {
 *   if (ctx.transport.auth === undefined) throw new JsonRpcError(-32000, 'Unauthorized');
 *   return next();
 * });
 * ```
 */
export type Middleware = (ctx: MiddlewareContext, next: () => Promise<unknown>) => Promise<unknown>;

/** Options of {@link Server.method}. */
export interface MethodOptions {
  /** Schema of the params (issues answer -32602). An object schema gives the parameter names. */
  readonly params?: StandardSchemaV1;
  /** Schema of the result: describes it (OpenRPC); the server does not validate results. */
  readonly result?: StandardSchemaV1;
  /** Parameter names in positional order: the method then accepts params by name and position. */
  readonly paramNames?: readonly string[];
  /** Deadline in milliseconds for this method (wins over the server's). */
  readonly timeout?: number;
  /** Description for OpenRPC. */
  readonly description?: string;
}

/** Options of {@link Server.notification}. */
export interface NotificationMethodOptions {
  /** Schema of the params. An object schema gives the parameter names. */
  readonly params?: StandardSchemaV1;
  /** Parameter names in positional order. */
  readonly paramNames?: readonly string[];
  /** Deadline in milliseconds: `ctx.signal` is aborted when it passes. */
  readonly timeout?: number;
  /** Description for OpenRPC. */
  readonly description?: string;
}

/** One entry of the registry, as {@link Server.methods} lists it. */
export interface MethodDescriptor {
  /** The full method name (prefix included). */
  readonly name: string;
  /** A method (answered) or a notification. */
  readonly kind: 'method' | 'notification';
  /** Schema of the params. */
  readonly params: StandardSchemaV1 | undefined;
  /** Schema of the result (methods only). */
  readonly result: StandardSchemaV1 | undefined;
  /** Parameter names in positional order, when known. */
  readonly paramNames: readonly string[] | undefined;
  /** Description. */
  readonly description: string | undefined;
  /** `true` for `rpc.*` methods registered with {@link Server.registerSystem}. */
  readonly system: boolean;
}

/** The handler a contract's entry needs: typed by its schemas. */
export type ContractHandler<E> =
  E extends MethodDefinition<any, any>
    ? (params: ParamsOutput<E>, ctx: HandlerContext) => ResultInput<E> | Promise<ResultInput<E>>
    : E extends NotificationDefinition<any>
      ? (params: ParamsOutput<E>, ctx: HandlerContext) => void | Promise<void>
      : never;

/** An implementation of a contract: one handler per method and notification. */
export type ContractImplementation<C extends Contract> = {
  readonly [K in MethodNames<C> | NotificationNames<C>]: ContractHandler<C[K]>;
};

/** Options of {@link Server.implement}. */
export interface ImplementOptions {
  /** Prepended to every name of the contract (`"calc."` gives `calc.add`). */
  readonly prefix?: string;
  /**
   * `"qualified"` registers each entry as `Service.method`, the service being the contract's
   * name (`defineContract(entries, { name })`); `"plain"` uses the names as they are. A `prefix`
   * goes before either.
   * @default "plain"
   */
  readonly naming?: 'plain' | 'qualified';
}

/** A served duplex connection: answers the peer's calls and can call the peer. */
export interface Connection extends ConnectionLike {
  /** Facts about the connection, as given to `connect()`. */
  readonly context: TransportContext;
  /** How many of the peer's calls are running now. */
  readonly inFlight: number;
  /**
   * `close()`, for `await using connection = server.connect(transport)`.
   *
   * @returns resolves once closed
   */
  [Symbol.asyncDispose](): Promise<void>;
}

/** A JSON-RPC server: a method registry plus dispatch, over `handle()` or `connect()`. */
export interface Server extends MessageHandler, ConnectionHandler<Connection> {
  /**
   * The `maxRequestBytes` given to `createServer`, for transport adapters to adopt; `undefined`
   * when none was given (the server then applies `DEFAULT_MAX_REQUEST_BYTES` itself, and each
   * adapter its own default).
   */
  readonly maxRequestBytes: number | undefined;
  /**
   * Registers a method.
   *
   * @param name - the method name (not `rpc.*`)
   * @param handler - the handler
   * @param options - schemas, names, timeout, description
   * @returns a function that removes the method
   * @throws TypeError for an empty, duplicate or `rpc.`-prefixed name
   */
  method<P = any, R = unknown>(
    name: string,
    handler: Handler<P, R>,
    options?: MethodOptions,
  ): () => void;
  /**
   * Registers a notification handler.
   *
   * @param name - the notification name (not `rpc.*`)
   * @param handler - the handler
   * @param options - schema, names, description
   * @returns a function that removes it
   * @throws TypeError for an empty, duplicate or `rpc.`-prefixed name
   */
  notification<P = any>(
    name: string,
    handler: NotificationHandler<P>,
    options?: NotificationMethodOptions,
  ): () => void;
  /**
   * Registers every method and notification of a contract.
   *
   * @param contract - the contract
   * @param implementation - one handler per entry
   * @param options - a name prefix
   * @returns a function that removes them all
   * @throws TypeError when a handler is missing or a name is taken
   */
  implement<C extends Contract>(
    contract: C,
    implementation: ContractImplementation<C>,
    options?: ImplementOptions,
  ): () => void;
  /**
   * Adds a middleware.
   *
   * @param middleware - the middleware
   * @returns a function that removes it
   */
  use(middleware: Middleware): () => void;
  /**
   * Registers a system method (`rpc.*`), for extensions such as `rpc.discover`.
   *
   * @param name - a name starting with `rpc.`
   * @param handler - the handler
   * @param options - as for {@link Server.method}
   * @returns a function that removes it
   * @throws TypeError when the name does not start with `rpc.` or is taken
   */
  registerSystem(name: string, handler: Handler, options?: MethodOptions): () => void;
  /**
   * The registry, in registration order.
   *
   * @returns one descriptor per registered method and notification
   */
  methods(): readonly MethodDescriptor[];
  /**
   * Answers one text (a message or a batch): the stateless exchange of HTTP and serverless.
   *
   * @param text - the request body
   * @param context - facts about the exchange
   * @returns the answer, or `undefined` when there is nothing to answer
   */
  handle(text: string, context?: TransportContext): Promise<string | undefined>;
  /**
   * Serves one duplex transport: starts it, answers its requests and correlates the answers to
   * the connection's own requests.
   *
   * @param transport - a transport, not yet started
   * @param context - facts about the connection
   * @returns the connection
   */
  connect(transport: Transport, context?: TransportContext): Connection;
  /** Runs the whole pipeline for one parsed request: resolves to the result or rejects with a `JsonRpcError`. Bound. */
  readonly onRequest: IncomingRequestHandler;
  /** Runs the whole pipeline for one parsed notification. Bound. */
  readonly onNotification: IncomingNotificationHandler;
  /** The open connections. */
  readonly connections: ReadonlySet<Connection>;
  /**
   * Closes every connection.
   *
   * @returns when all are closed
   */
  close(): Promise<void>;
  /**
   * `close()`, for `await using server = createServer()`.
   *
   * @returns when all connections are closed
   */
  [Symbol.asyncDispose](): Promise<void>;
}
