/// <reference lib="esnext.disposable" preserve="true" />
/**
 * The public shapes of the server: options, the server and its connections, handlers, contexts,
 * middleware and the method registry's descriptors.
 *
 * @module
 */
import type {
  ConnectionHandler,
  ConnectionLike,
  Contract,
  Middleware as CoreMiddleware,
  IncomingNotificationHandler,
  IncomingRequestHandler,
  JsonRpcId,
  MessageHandler,
  MethodDefinition,
  MethodNames,
  NotificationDefinition,
  NotificationNames,
  ParamsOutput,
  Peer,
  ProgressReporter,
  ResultInput,
  StandardSchemaV1,
  Transport,
  TransportContext,
} from '@jsonrpc-kit/core';

export type { ErrorInfo, ServerOptions } from './options.js';

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
  /**
   * Reports progress to the caller (`$/progress` or the profile's notification); `undefined`
   * when the caller sent no progress token, for notifications, and over stateless transports.
   * Reports after the call ended are dropped.
   *
   * @example
   * ```ts
   * server.method('index', async (_params, ctx) => {
   *   for (let i = 1; i <= 10; i++) await ctx.progress?.({ progress: i, total: 10 });
   *   return 'done';
   * });
   * ```
   */
  readonly progress: ProgressReporter<any> | undefined;
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
export type Middleware = CoreMiddleware<MiddlewareContext>;

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
}

/** A served duplex connection: answers the peer's calls and can call the peer. */
export interface Connection extends ConnectionLike {
  /** Facts about the connection, as given to `connect()`. */
  readonly context: TransportContext;
  /** How many of the peer's calls are running now. */
  readonly inFlight: number;
  /**
   * Sends a message that is already serialized, as it is (no parse, no second
   * `JSON.stringify`), in order with the connection's other messages: for text made once and
   * sent to many connections.
   *
   * @param text - one serialized JSON-RPC message or batch; the caller answers for its validity
   * @returns resolves once the transport took it (after backpressure clears)
   * @throws (rejects) `ConnectionClosedError` once the connection has closed
   * @example
   * ```ts
   * const text = serializeNotification('tick', { n: 1 });
   * await Promise.all([...server.connections].map((c) => c.sendText(text)));
   * ```
   */
  sendText(text: string): Promise<void>;
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
  /**
   * Runs the whole pipeline for one parsed request: resolves to the result or rejects with a
   * `JsonRpcError`. Bound: pass it as a client's `onRequest` to serve calls from the other side.
   */
  readonly handleRequest: IncomingRequestHandler;
  /** Runs the whole pipeline for one parsed notification. Bound: a client's `onNotification`. */
  readonly handleNotification: IncomingNotificationHandler;
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
