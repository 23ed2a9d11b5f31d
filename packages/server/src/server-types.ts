/// <reference lib="esnext.disposable" preserve="true" />
/**
 * The server's face: the {@link Server} interface and its served {@link Connection}s.
 *
 * @module
 */
import type { Codec, Contract, ParseResult, Transport, TransportContext } from '@jsonrpc-kit/core';
import type {
  ConnectionHandler,
  ConnectionLike,
  MaybeSchema,
  MessageHandler,
} from '@jsonrpc-kit/core/engine';
import type {
  ContractImplementation,
  Handler,
  ImplementOptions,
  MethodDescriptor,
  NotificationHandler,
  NotificationMethodOptions,
  SchemaParams,
  SchemaResult,
  ServerMethodOptions,
  ServerMiddleware,
} from './types.js';

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
   * The `maxMessageBytes` given to `createServer`, for transport adapters to adopt; `undefined`
   * when none was given (the server then applies `DEFAULT_MAX_MESSAGE_BYTES` itself, and each
   * adapter its own default).
   */
  readonly maxMessageBytes: number | undefined;
  /**
   * The `codec` given to `createServer`, or `undefined`: `createSubscriptions` encodes items with
   * it, as the server encodes results.
   */
  readonly codec: Codec | undefined;
  /**
   * How the server and its connections parse a message (with its `maxBatchSize`, `codec`,
   * `jsonrpc1` and `batches` settings), for transport adapters that must read a message before
   * handing it to a connection: the connection then takes the result and does not parse again.
   *
   * @example
   * ```ts
   * server.parse('{"jsonrpc":"2.0","id":1,"method":"ping"}').kind; // 'request'
   * ```
   */
  readonly parse: (text: string) => ParseResult;
  /**
   * Registers a method. With schemas in `options`, the handler is typed by them as in
   * {@link Server.implement}: it receives the params schema's output type and returns the result
   * schema's input type. Without, `P` and `R` type it (`any` and `unknown` unless given).
   *
   * @param name - the method name (not `rpc.*`)
   * @param handler - the handler
   * @param options - schemas, names, timeout, description
   * @returns a function that removes the method
   * @throws TypeError for an empty, duplicate or `rpc.`-prefixed name, or a `params` or `result`
   *   that is not a Standard Schema
   * @example
   * ```ts
   * server.method('add', ([a, b]) => a + b, {
   *   params: v.tuple([v.number(), v.number()]), // the handler receives [number, number]
   *   result: v.number(), // and must return a number
   * });
   * ```
   */
  method<
    P = any,
    R = unknown,
    PS extends MaybeSchema = MaybeSchema,
    RS extends MaybeSchema = MaybeSchema,
  >(
    name: string,
    handler: Handler<SchemaParams<PS, P>, SchemaResult<RS, R>>,
    options?: ServerMethodOptions<PS, RS>,
  ): () => void;
  /**
   * Registers a notification handler.
   *
   * @param name - the notification name (not `rpc.*`)
   * @param handler - the handler
   * @param options - schema, names, description
   * @returns a function that removes it
   * @throws TypeError for an empty, duplicate or `rpc.`-prefixed name, or a `params` that is not
   *   a Standard Schema
   */
  notification<P = any, PS extends MaybeSchema = MaybeSchema>(
    name: string,
    handler: NotificationHandler<SchemaParams<PS, P>>,
    options?: NotificationMethodOptions<PS>,
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
  use(middleware: ServerMiddleware): () => void;
  /**
   * Registers a system method (`rpc.*`), for extensions such as `rpc.discover`.
   *
   * @param name - a name starting with `rpc.`
   * @param handler - the handler
   * @param options - as for {@link Server.method}
   * @returns a function that removes it
   * @throws TypeError when the name does not start with `rpc.` or is taken
   */
  registerSystem(name: string, handler: Handler, options?: ServerMethodOptions): () => void;
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
   * Answers one text as {@link Server.handle} does, but at once when every handler it ran answered
   * synchronously (a promise only when one did not). The HTTP adapters use it to answer in the
   * same turn.
   *
   * @param text - the request body
   * @param context - facts about the exchange
   * @returns the answer, `undefined` when there is nothing to answer, or a promise of either
   * @example
   * ```ts
   * server.method('add', ([a, b]: [number, number]) => a + b);
   * server.answer('{"jsonrpc":"2.0","id":1,"method":"add","params":[1,2]}');
   * // '{"jsonrpc":"2.0","id":1,"result":3}'
   * ```
   */
  answer(
    text: string,
    context?: TransportContext,
  ): string | undefined | Promise<string | undefined>;
  /**
   * Serves one duplex transport: starts it, answers its requests and correlates the answers to
   * the connection's own requests.
   *
   * @param transport - a transport, not yet started
   * @param context - facts about the connection
   * @returns the connection
   */
  connect(transport: Transport, context?: TransportContext): Connection;
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
