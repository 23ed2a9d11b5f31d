/**
 * The public shapes of the server's handlers: contexts, handlers, middleware and the method
 * registry's descriptors (the server and its connections are in `server-types.ts`, the options
 * in `options.ts`).
 *
 * @module
 */
import type {
  Contract,
  Middleware as CoreMiddleware,
  InferInput,
  InferOutput,
  JsonRpcId,
  MethodDefinition,
  MethodDocs,
  MethodNames,
  NotificationDefinition,
  NotificationNames,
  ParamsOutput,
  Peer,
  ProgressReporter,
  ResultInput,
  StandardSchemaV1,
  TransportContext,
} from '@jsonrpc-kit/core';
import type { MaybeSchema } from '@jsonrpc-kit/core/engine';

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
   * When the caller stops waiting, as a `Date.now()` time on this server's clock; `ctx.signal`
   * aborts then and the call is answered -32005. `undefined` unless the server reads contexts
   * ({@link ServerOptions.callContext}) and the caller sent a deadline. The context object is
   * itself valid request options: `ctx.peer.request(method, params, ctx)` (or any client's
   * `request`) passes the deadline, the metadata and the cancellation on.
   *
   * @example
   * ```ts
   * server.method('search', async (params: { q: string }, ctx) => {
   *   // The index call gets the time left, the caller's meta, and is cancelled with this one.
   *   return ctx.peer?.request('index.lookup', { q: params.q }, ctx);
   * });
   * ```
   */
  readonly deadline: number | undefined;
  /**
   * The caller's metadata (auth, tenant, trace) from `params._meta` or the `Jsonrpc-Meta` header;
   * `undefined` unless the server reads contexts ({@link ServerOptions.callContext}).
   */
  readonly meta: Readonly<Record<string, unknown>> | undefined;
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
export type ServerMiddleware = CoreMiddleware<MiddlewareContext>;

/**
 * The params a handler receives: the output type of the params schema `S` when one is given,
 * otherwise `P`.
 */
export type SchemaParams<S extends MaybeSchema, P> = [S] extends [StandardSchemaV1]
  ? InferOutput<S>
  : P;

/**
 * What a handler returns: the input type of the result schema `S` when one is given, otherwise
 * `R`.
 */
export type SchemaResult<S extends MaybeSchema, R> = [S] extends [StandardSchemaV1]
  ? InferInput<S>
  : R;

/**
 * Options of {@link Server.method}. `PS` and `RS` are the params and result schemas, inferred
 * from the call: they type the handler.
 */
export interface ServerMethodOptions<
  PS extends MaybeSchema = MaybeSchema,
  RS extends MaybeSchema = MaybeSchema,
> {
  /**
   * Schema of the params (issues answer -32602). An object schema gives the parameter names.
   * The handler receives its output type.
   */
  readonly params?: PS;
  /**
   * Schema of the result: describes it (OpenRPC) and types what the handler returns (its input
   * type); the server does not validate results.
   */
  readonly result?: RS;
  /** Parameter names in positional order: the method then accepts params by name and position. */
  readonly paramNames?: readonly string[];
  /** Deadline in milliseconds for this method (wins over the server's). */
  readonly timeout?: number;
  /** Description for OpenRPC. */
  readonly description?: string;
  /** The rest of its API description, for OpenRPC: summary, tags, examples, errors, … */
  readonly docs?: MethodDocs;
}

/**
 * Options of {@link Server.notification}. `PS` is the params schema, inferred from the call: it
 * types the handler.
 */
export interface NotificationMethodOptions<PS extends MaybeSchema = MaybeSchema> {
  /**
   * Schema of the params. An object schema gives the parameter names. The handler receives its
   * output type.
   */
  readonly params?: PS;
  /** Parameter names in positional order. */
  readonly paramNames?: readonly string[];
  /** Deadline in milliseconds: `ctx.signal` is aborted when it passes. */
  readonly timeout?: number;
  /** Description for OpenRPC. */
  readonly description?: string;
  /** The rest of its API description, for OpenRPC: summary, tags, examples, errors, … */
  readonly docs?: MethodDocs;
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
  /** The rest of its API description (OpenRPC), when given. */
  readonly docs?: MethodDocs | undefined;
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
