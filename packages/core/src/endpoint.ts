/**
 * The shapes the endpoints (client, server) and the transports agree on without importing each
 * other: what a transport tells the server about an exchange, what a duplex peer can do, how an
 * incoming call is handed to a handler, and how cancellation travels on the wire.
 *
 * @module
 */
import type { JsonRpcNotification, JsonRpcParams, JsonRpcRequest } from './messages.js';
import type { ParseResult } from './parsed.js';
import type { ProgressReporter } from './protocols.js';
import type { Transport } from './transport.js';

/** Header values as `node:http` gives them (lower-case names). */
export type TransportHeaders = Readonly<Record<string, string | readonly string[] | undefined>>;

/**
 * Facts a transport knows about an exchange or a connection, handed to the server with each
 * message (`server.handle(text, context)`, `server.connect(transport, context)`) and visible to
 * handlers as `ctx.transport`.
 */
export interface TransportContext {
  /** Which transport: `"http"`, `"ws"`, `"stdio"`, `"memory"`, or your own name. */
  readonly kind?: string;
  /** Request (HTTP) or upgrade (WebSocket) headers, lower-case names. */
  readonly headers?: TransportHeaders;
  /** The peer's address. */
  readonly remoteAddress?: string;
  /** The request URL (HTTP) or upgrade URL (WebSocket). */
  readonly url?: string;
  /** The HTTP method. */
  readonly httpMethod?: string;
  /** Aborted when the exchange or connection ends early (the client went away). */
  readonly signal?: AbortSignal;
  /** What an authentication hook established about the caller. */
  readonly auth?: unknown;
  /**
   * The id of the transport's session, when other processes may serve it too (Streamable HTTP
   * with a shared session store): what a handler knows of the session's client can be kept under
   * it for them.
   */
  readonly sessionId?: string;
  /**
   * The size limit, in bytes, the transport applies to this exchange or connection: the server
   * refuses larger messages by this limit instead of its own, so that one endpoint has one limit.
   */
  readonly maxMessageBytes?: number;
}

/** Per-call options of an outgoing request. */
export interface RequestOptions {
  /** Aborts the call; the promise rejects with an `AbortError`. */
  readonly signal?: AbortSignal | undefined;
  /** Milliseconds to wait for the answer; overrides the endpoint's default. `0` waits forever. */
  readonly timeout?: number | undefined;
  /**
   * Receives the progress the handler reports (`ctx.progress(...)` on the other side). Setting it
   * puts a fresh progress token in the params, where the endpoint's profile says (so the params
   * must be by name, or absent).
   *
   * Progress needs a transport that carries the server's messages to the caller while the call
   * runs: WebSocket, stdio, a memory pair, Streamable HTTP (its answer streams). Over plain HTTP
   * (`createHttpTransport`: one JSON answer per POST) nothing but the answer comes back, so
   * `onProgress` is never called, without an error; the call itself works as without it.
   */
  readonly onProgress?: ((value: any) => void) | undefined;
  /** Restarts the timeout on each progress notification, as the MCP SDK offers. @default false */
  readonly resetTimeoutOnProgress?: boolean | undefined;
  /**
   * When the caller stops waiting: a time as `Date.now()` gives it, or a `Date`. It bounds the
   * call here (as `timeout` does) and travels with it, as the milliseconds left: in
   * `params._meta["rpc.timeout"]` on duplex transports (by-name or absent params; by-position
   * params have no place for it, so there it only bounds the wait here), in the
   * `Jsonrpc-Timeout` header over HTTP. A server that reads contexts aborts the handler's
   * `ctx.signal` when it passes. Setting it (or `meta`) also sends the call's `timeout`, when that
   * is sooner. Unset with `meta` unset, nothing changes on the wire.
   * @default undefined
   */
  readonly deadline?: number | Date | undefined;
  /**
   * The caller's metadata (auth, tenant, trace): a small JSON object that travels with the call,
   * in `params._meta` on duplex transports (by-name or absent params; by-position params go out
   * without it), in the `Jsonrpc-Meta` header over HTTP; a server that reads contexts shows it as
   * `ctx.meta`.
   * @default undefined
   */
  readonly meta?: Readonly<Record<string, unknown>> | undefined;
}

/** The other side of a duplex connection, as seen from one side. */
export interface Peer {
  /**
   * Sends a notification.
   *
   * @param method - the method name
   * @param params - the params
   */
  notify(method: string, params?: JsonRpcParams): Promise<void>;
  /**
   * Sends a request and waits for its answer.
   *
   * @param method - the method name
   * @param params - the params
   * @param options - signal and timeout
   * @returns the result
   */
  request<T = unknown>(
    method: string,
    params?: JsonRpcParams,
    options?: RequestOptions,
  ): Promise<T>;
  /**
   * Sends a message that is already serialized, as it is: no parse, no second `JSON.stringify`,
   * in order with the peer's other messages. Features that send one text to many peers (a
   * subscription's items) use it when the peer has it. Present on a server's connections.
   *
   * @param text - one serialized JSON-RPC message or batch; the caller answers for its validity
   * @returns resolves once the transport took it (after backpressure clears)
   */
  sendText?(text: string): Promise<void>;
}

/** What a handler of incoming calls gets besides the message. */
export interface IncomingContext {
  /** Aborted on cancellation, timeout, or the connection closing. */
  readonly signal: AbortSignal;
  /** The side that sent the call, to call it back. */
  readonly peer: Peer;
  /** Facts about the transport. */
  readonly transport: TransportContext;
  /**
   * Reports progress to the caller, as the profile says; `undefined` when the caller sent no
   * progress token (or this is a notification).
   */
  readonly progress?: ProgressReporter<any> | undefined;
}

/**
 * Handles a request that arrived on a duplex connection: returns (or resolves to) the result, or
 * throws a `JsonRpcError` to answer with that error. A `Server`'s `onRequest` has this shape, so a
 * client can serve methods too, as LSP peers do.
 */
export type IncomingRequestHandler = (request: JsonRpcRequest, ctx: IncomingContext) => unknown;

/** Handles a notification that arrived on a duplex connection. */
export type IncomingNotificationHandler = (
  notification: JsonRpcNotification,
  ctx: IncomingContext,
) => void | Promise<void>;

/** What a stateless adapter (HTTP, serverless) needs from a server. */
export interface MessageHandler {
  /**
   * The size limit set on the server, in bytes, when one was set. Transport adapters adopt it
   * unless they are given their own.
   */
  readonly maxMessageBytes?: number | undefined;
  /**
   * Answers one text (a message or a batch).
   *
   * @param text - the request body
   * @param context - facts about the exchange
   * @returns the answer text, or `undefined` when there is nothing to answer
   */
  handle(text: string, context?: TransportContext): Promise<string | undefined>;
  /**
   * Answers one text as {@link MessageHandler.handle} does, but at once when it can: the answer
   * text (or `undefined`) itself when every handler it ran answered synchronously, a promise only
   * when one did not. Adapters prefer it when present, to write a synchronous answer in the same
   * turn, without a promise and a microtask per exchange.
   *
   * @param text - the request body
   * @param context - facts about the exchange
   * @returns the answer text, `undefined` when there is nothing to answer, or a promise of either
   */
  answer?(
    text: string,
    context?: TransportContext,
  ): string | undefined | PromiseLike<string | undefined>;
}

/** A served duplex connection, as a transport adapter sees it. */
export interface ConnectionLike extends Peer {
  /**
   * Closes the connection and its transport.
   *
   * @param reason - why
   */
  close(reason?: unknown): Promise<void>;
  /** Resolves when the connection has closed, for whatever reason. */
  readonly closed: Promise<void>;
}

/** What a duplex adapter (WebSocket, stdio) needs from a server. */
export interface ConnectionHandler<C extends ConnectionLike = ConnectionLike> {
  /** As {@link MessageHandler.maxMessageBytes}. */
  readonly maxMessageBytes?: number | undefined;
  /**
   * How its connections parse what they receive (a server's batch limit, codec and JSON-RPC 1.0
   * setting): the same function as their handlers' `TransportHandler.parse`. An adapter that
   * must read a message before it knows which connection takes it (a Streamable HTTP POST that
   * starts a session) parses it with this and hands the result on through
   * `TransportHandler.onParsed`.
   */
  readonly parse?: ((text: string) => ParseResult) | undefined;
  /**
   * Serves one duplex transport.
   *
   * @param transport - the transport, not yet started
   * @param context - facts about the connection
   * @returns the connection
   */
  connect(transport: Transport, context?: TransportContext): C;
}
