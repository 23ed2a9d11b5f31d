/**
 * The one abstraction every duplex transport implements: it moves text. Framing lives inside each
 * transport; meaning (ids, correlation, timeouts) lives in the client and the server.
 *
 * @module
 */
import type { MessageEnvelope } from './envelope.js';
import type { ParseResult } from './parsed.js';

/**
 * A call's context as it travels: what a transport that carries it (HTTP, as headers) is handed
 * with the call (`SendOptions.callContext`).
 */
export interface CallContext {
  /** Milliseconds the caller still waits, counted when the call was sent. */
  readonly timeout?: number | undefined;
  /** The caller's metadata: a small JSON object (auth, tenant, trace). */
  readonly meta?: Readonly<Record<string, unknown>> | undefined;
}

/**
 * Receives what a transport delivers. Passed to {@link Transport.start}: one owner per transport.
 * The kit's owners pass a plain object: a wrapper may copy it (`{ ...handler, onMessage }`), unless
 * the transport declares {@link Transport.callsHandlerMethods}.
 */
export interface TransportHandler {
  /** One inbound message or batch, as text. */
  onMessage(message: string): void;
  /**
   * The owner's parser (a server's, with its batch limit, codec and JSON-RPC 1.0 setting), when
   * the owner takes messages already parsed through {@link TransportHandler.onParsed}.
   */
  readonly parse?: ((text: string) => ParseResult) | undefined;
  /**
   * One inbound message or batch that the transport had to read before delivering it (Streamable
   * HTTP reads a POST's ids to know which answers its response waits for), with what this
   * handler's own {@link TransportHandler.parse} made of it: the message is parsed once, not
   * twice. A transport calls it only with a result of that very function (compare the functions
   * first); otherwise, or without this member, it calls {@link TransportHandler.onMessage}.
   *
   * @param parsed - what `parse(text)` returned
   * @param text - the message, as text
   */
  onParsed?(parsed: ParseResult, text: string): void;
  /** The transport closed. Fires exactly once; `error` is set when it closed because of a failure. */
  onClose(error?: Error): void;
  /** A non-fatal problem (a bad frame, say); the transport keeps going. */
  onError?(error: Error): void;
  /**
   * The underlying connection dropped but the transport will try to reconnect (a reconnecting
   * WebSocket, say): calls in flight will not be answered, so the owner should fail them now.
   */
  onDisconnect?(error?: Error): void;
  /** The transport reconnected after {@link TransportHandler.onDisconnect}. */
  onReconnect?(): void;
  /**
   * The other side will send nothing more (its end of a byte stream ended: stdin at end of file),
   * but sends still go out. A transport that can half-close calls this instead of closing, when the
   * owner has this member; the owner then closes the transport once it has nothing left to send.
   * Without this member, the end of input closes the transport.
   */
  onEnd?(): void;
  /**
   * A message over the transport's size limit was dropped without being parsed. `envelope` is
   * what a bounded scan of its top level found, so that the owner can answer a request with its
   * own id (and never answer a notification). Without this member, `error` goes to `onError`.
   *
   * @param envelope - the message's kind, id and method, as far as the scan could tell
   * @param error - what the transport would report to `onError`
   */
  onTooLarge?(envelope: MessageEnvelope, error: Error): void;
  /**
   * The owner's own size limit in bytes, when it has one (a server's `maxMessageBytes`). A
   * transport without a limit of its own adopts it.
   */
  readonly maxMessageBytes?: number | undefined;
}

/** Options of one {@link Transport.send}. */
export interface SendOptions {
  /**
   * Aborted when nobody waits for this message any more (every call in it timed out or was
   * aborted). Transports that can cancel an in-flight exchange (HTTP) do; others ignore it.
   */
  readonly signal?: AbortSignal | undefined;
  /**
   * The context of the call this message is, for a transport that carries it itself
   * ({@link Transport.carriesCallContext}: HTTP sends it as headers). Set only when the call has
   * a `deadline` or `meta`.
   */
  readonly callContext?: CallContext | undefined;
}

/**
 * The promise a transport's `send()` may return when it took the message at once and has
 * nothing to wait for. It is one shared, already resolved promise: the client and the server
 * recognise it and skip watching that send for a failure, so a call costs no handler for it.
 * Transports that wait (backpressure, an HTTP exchange) return their own promise instead.
 *
 * @example
 * ```ts
 * const transport: Transport = {
 *   start: (handler) => state.start(handler),
 *   send(message) {
 *     socket.send(message);
 *     return SENT;
 *   },
 *   close: async () => socket.close(),
 * };
 * ```
 */
export const SENT: Promise<void> = Promise.resolve();

/**
 * A duplex channel that moves serialized JSON-RPC messages.
 *
 * - `start()` is called once; nothing that arrives before it is lost (it is buffered).
 * - `send()` sends one serialized message or batch, in call order, and resolves once the
 *   transport can take more (after backpressure clears). It rejects with a `ConnectionClosedError`
 *   after close, or a `TransportError`.
 * - `close()` is idempotent; `handler.onClose` fires once.
 */
export interface Transport {
  /**
   * Begins delivering inbound messages to `handler`.
   *
   * @param handler - the only receiver of this transport's messages
   */
  start(handler: TransportHandler): Promise<void>;
  /**
   * Sends one serialized message or batch.
   *
   * @param message - JSON text
   * @param options - a signal to cancel an in-flight exchange
   */
  send(message: string, options?: SendOptions): Promise<void>;
  /**
   * Sends one serialized message given as UTF-8 bytes, in one or two parts (`head`, then
   * `tail`): the same as `send()` of its text. Offered by transports that write bytes anyway
   * (the WebSocket server's sockets), so that a text encoded once goes to many peers without
   * being encoded again for each: a published subscription item is each subscriber's own
   * envelope head and the item's shared tail. Optional: senders fall back to `send()`.
   *
   * @param head - the message's first bytes (or all of them)
   * @param tail - the bytes after `head`; the caller changes neither afterwards
   */
  sendBytes?(head: Uint8Array, tail?: Uint8Array): Promise<void>;
  /**
   * Closes the transport. Idempotent.
   *
   * @param reason - why, passed on to the other side where the transport can
   */
  close(reason?: unknown): Promise<void>;
  /**
   * The largest inbound message this transport delivers, in bytes, when it enforces a limit
   * itself (larger ones go to {@link TransportHandler.onTooLarge}). Its owner applies this limit
   * instead of its own, so that one endpoint has one limit. Read after `start()`.
   */
  readonly maxMessageBytes?: number | undefined;
  /**
   * `true` when the transport carries a call's context (`deadline`, `meta`) outside the message
   * (HTTP headers), from {@link SendOptions.callContext}; the params then stay as they are.
   * Otherwise the context goes into the params (`params._meta`).
   */
  readonly carriesCallContext?: boolean | undefined;
  /**
   * `true` when `start()` keeps the handler it is given and calls its members only as methods of
   * it (`handler.onMessage(text)`, `handler.onError?.(error)`): it never copies the handler, lists
   * its members, or takes one off it to call alone. An owner may then pass an object whose
   * members live on its prototype instead of a plain object of closures, which costs less memory
   * per connection (the kit's session does). Optional members are still present only when the
   * owner has them. Wrappers that copy the handler leave this out.
   */
  readonly callsHandlerMethods?: boolean | undefined;
  /**
   * The owner tells whether it now expects messages the peer sends unprompted (it holds live
   * subscriptions). A transport that must open a channel for them (Streamable HTTP's GET stream)
   * opens it while they are wanted; others need not implement this.
   *
   * @param wanted - `true` from the first live subscription, `false` after the last one ended
   */
  setPushWanted?(wanted: boolean): void;
}
