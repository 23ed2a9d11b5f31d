/**
 * The shapes the endpoints (client, server) and the transports agree on without importing each
 * other: what a transport tells the server about an exchange, what a duplex peer can do, how an
 * incoming call is handed to a handler, and how cancellation travels on the wire.
 *
 * @module
 */
import { ErrorCode } from './errors.js';
import type { JsonRpcId, JsonRpcNotification, JsonRpcParams, JsonRpcRequest } from './messages.js';
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
   * The size limit, in bytes, the transport applies to this exchange or connection: the server
   * refuses larger messages by this limit instead of its own, so that one endpoint has one limit.
   */
  readonly maxRequestBytes?: number;
}

/** Per-call options of an outgoing request. */
export interface RequestOptions {
  /** Aborts the call; the promise rejects with an `AbortError`. */
  readonly signal?: AbortSignal | undefined;
  /** Milliseconds to wait for the answer; overrides the endpoint's default. `0` waits forever. */
  readonly timeout?: number | undefined;
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
}

/** What a handler of incoming calls gets besides the message. */
export interface IncomingContext {
  /** Aborted on cancellation, timeout, or the connection closing. */
  readonly signal: AbortSignal;
  /** The side that sent the call, to call it back. */
  readonly peer: Peer;
  /** Facts about the transport. */
  readonly transport: TransportContext;
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
  readonly maxRequestBytes?: number | undefined;
  /**
   * Answers one text (a message or a batch).
   *
   * @param text - the request body
   * @param context - facts about the exchange
   * @returns the answer text, or `undefined` when there is nothing to answer
   */
  handle(text: string, context?: TransportContext): Promise<string | undefined>;
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
  /** As {@link MessageHandler.maxRequestBytes}. */
  readonly maxRequestBytes?: number | undefined;
  /**
   * Serves one duplex transport.
   *
   * @param transport - the transport, not yet started
   * @param context - facts about the connection
   * @returns the connection
   */
  connect(transport: Transport, context?: TransportContext): C;
}

/**
 * How cancellation travels on the wire: the notification the caller sends and the error code the
 * cancelled request is answered with. Profiles for LSP and MCP live in `@jsonrpc-kit/extensions`.
 */
export interface CancellationProtocol {
  /** The notification's method. */
  readonly method: string;
  /** The code a cancelled request is answered with. */
  readonly code: number;
  /**
   * Whether a cancelled request is answered at all. LSP answers it (with `code`); MCP says a
   * cancelled request gets no answer.
   * @default true
   */
  readonly answer?: boolean;
  /**
   * Builds the notification's params.
   *
   * @param id - the id of the request to cancel
   * @param reason - why, when known
   */
  toParams(id: JsonRpcId, reason?: string): JsonRpcParams;
  /**
   * Reads the id of the request to cancel from the notification's params.
   *
   * @param params - the params received
   * @returns the id, or `undefined` when the params name none
   */
  fromParams(params: JsonRpcParams | undefined): JsonRpcId | undefined;
}

function idMember(params: JsonRpcParams | undefined, name: string): JsonRpcId | undefined {
  if (typeof params !== 'object' || params === null || Array.isArray(params)) return undefined;
  const id = (params as Record<string, unknown>)[name];
  return typeof id === 'string' || typeof id === 'number' || id === null ? id : undefined;
}

/**
 * The kit's default cancellation: `$/cancelRequest` with `{ "id": … }`, answered with -32001.
 */
export const defaultCancellation: CancellationProtocol = Object.freeze({
  method: '$/cancelRequest',
  code: ErrorCode.RequestCancelled,
  toParams: (id: JsonRpcId) => ({ id }),
  fromParams: (params: JsonRpcParams | undefined) => idMember(params, 'id'),
});
