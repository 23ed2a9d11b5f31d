/**
 * One served duplex transport: core's session (which owns the transport, the outgoing and
 * incoming call tables, cancellation and progress) answering through the server's dispatcher,
 * with the server's size limit and a concurrency limiter per connection.
 *
 * @module
 */
import {
  type ErrorInfo as CoreErrorInfo,
  type JsonRpcParams,
  type ParseResult,
  type Peer,
  type Profile,
  type RequestOptions,
  RequestTooLargeError,
  type Transport,
  type TransportContext,
} from '@jsonrpc-kit/core';
import {
  asyncDisposeSymbol,
  createSession,
  type FifoQueue,
  type MessageEnvelope,
  type Session,
  type SessionAnswer,
  type SessionOptions,
  scanEnvelope,
} from '@jsonrpc-kit/core/engine';
import type { Dispatcher } from './dispatch.js';
import { type Lane, type Limiter, NO_LANES, NO_QUEUE, NO_TURNS } from './limiter.js';
import type { ServerErrorInfo } from './options.js';
import type { Scope } from './scope.js';
import type { Connection } from './server-types.js';
import { refuseTooLarge } from './too-large.js';
import { exceedsUtf8Bytes } from './utf8.js';

/** What a connection needs from its server. */
export interface ConnectionConfig {
  readonly dispatcher: Dispatcher;
  /** The server's limit, its default included. */
  readonly maxMessageBytes: number;
  /** The limit the user set on the server, offered to the transport; `undefined` when none. */
  readonly setMessageBytes: number | undefined;
  /** Most calls of one connection running at once (at least 1). */
  readonly maxConcurrency: number;
  /** Most calls of one connection waiting (at least 0). */
  readonly maxQueue: number;
  readonly peerCallTimeout: number;
  readonly profile: Profile<any> | undefined;
  readonly report: (error: unknown, info: ServerErrorInfo) => void;
  readonly onClosed: (connection: Connection) => void;
}

/**
 * What few connections hold: calls waiting for a slot, a size limit other than the server's.
 */
interface RareConnectionState {
  queue?: FifoQueue<() => void> | undefined;
  sizeLimit?: number;
}

/**
 * One served transport, in one object: the connection its users see, the options and hooks its
 * session calls (`screen`, `onTooLarge`, `report`, `onClose`; called on this object), the
 * dispatcher's scope of its calls and the limiter of those calls. A class, so that a connection
 * holds its fields and nothing else: the methods and the getters of what every connection of a
 * server shares (its config) or what is fixed (`peer` is the connection itself) live once on the
 * prototype, and what few connections need (see {@link RareConnectionState}) is made on first use.
 * Even the config is on a prototype: each server makes its connections from a subclass of its own
 * ({@link connectionMaker}), so a connection holds four fields, not five.
 */
abstract class ServedConnection implements Connection, SessionOptions, Scope, Limiter {
  readonly context: TransportContext;
  // The limiter's running calls (a connection's limiter is never fair: no lanes, nothing queued
  // in them, so `queued` is a getter of 0 below, never written).
  active = 0;
  session!: Session;
  #rare: RareConnectionState | undefined = undefined;

  constructor(context: TransportContext) {
    this.context = context;
    if (context.maxMessageBytes !== undefined) this.sizeLimit = context.maxMessageBytes;
  }

  /** What every connection of its server shares: a getter of the server's subclass. */
  protected abstract get config(): ConnectionConfig;

  /** The limiter's waiting calls: a shared empty queue until one waits. */
  get queue(): FifoQueue<() => void> {
    return this.#rare?.queue ?? NO_QUEUE;
  }

  set queue(queue: FifoQueue<() => void>) {
    (this.#rare ??= {}).queue = queue;
  }

  /** The connection's size limit: the transport's own when it enforces one, else the server's. */
  get sizeLimit(): number {
    return this.#rare?.sizeLimit ?? this.config.maxMessageBytes;
  }

  set sizeLimit(bytes: number) {
    if (bytes !== this.sizeLimit) (this.#rare ??= {}).sizeLimit = bytes;
  }

  // The dispatcher's scope.

  get transport(): TransportContext {
    return this.context;
  }

  get limiter(): Limiter {
    return this;
  }

  get peer(): Peer {
    return this;
  }

  get client(): undefined {
    return undefined;
  }

  get outer(): undefined {
    return undefined;
  }

  // The limiter.

  get max(): number {
    return this.config.maxConcurrency;
  }

  get maxQueue(): number {
    return this.config.maxQueue;
  }

  get lanes(): Map<string, Lane> {
    return NO_LANES;
  }

  get turns(): FifoQueue<Lane> {
    return NO_TURNS;
  }

  get fair(): undefined {
    return undefined;
  }

  get queued(): number {
    return 0;
  }

  // The session's options.

  get profile(): Profile<any> | undefined {
    return this.config.profile;
  }

  get sendCancel(): boolean {
    return true;
  }

  get callTimeout(): number {
    return this.config.peerCallTimeout;
  }

  get parse(): (text: string) => ParseResult {
    return this.config.dispatcher.parse;
  }

  get maxMessageBytes(): number | undefined {
    return this.config.setMessageBytes;
  }

  // The connection.

  /** Resolves when the connection has closed; made on first read. */
  get closed(): Promise<void> {
    return this.session.closed;
  }

  get inFlight(): number {
    return this.active;
  }

  notify(method: string, params?: JsonRpcParams): Promise<void> {
    return this.session.notify(method, params);
  }

  sendText(text: string): Promise<void> {
    return this.session.send(text);
  }

  request<T = unknown>(
    method: string,
    params?: JsonRpcParams,
    options?: RequestOptions,
  ): Promise<T> {
    return this.session.request(method, params, options) as Promise<T>;
  }

  close(reason?: unknown): Promise<void> {
    return this.session.close(reason);
  }

  [asyncDisposeSymbol](): Promise<void> {
    return this.session.close();
  }

  // The session's dispatch and hooks.

  /**
   * Answers one message: the session's dispatch, called on this connection.
   *
   * @param parsed - the message
   * @returns the answer
   */
  answer(parsed: ParseResult): SessionAnswer {
    return this.config.dispatcher.answer(parsed, this);
  }

  screen(text: string): boolean {
    if (!exceedsUtf8Bytes(text, this.sizeLimit)) return false;
    this.onTooLarge(
      scanEnvelope(text),
      new RequestTooLargeError(undefined, { maxRequestBytes: this.sizeLimit }),
    );
    return true;
  }

  /** A message too large to parse: answer a request with its own id, report every one. */
  onTooLarge(envelope: MessageEnvelope, error: Error): void {
    const session = this.session;
    if (session.isClosed) return;
    const answer = refuseTooLarge(envelope, this.sizeLimit, error, this.config.report);
    if (answer !== undefined) session.sendDetached(answer);
    else if (envelope.kind === 'response') session.reject(envelope.id, error);
  }

  report(error: Error, info: CoreErrorInfo): void {
    this.config.report(error, { ...info, notification: info.kind === 'notification-failed' });
  }

  onClose(): void {
    // Waiting calls were aborted: starting them only rejects them.
    const waiting = this.queue;
    if (waiting !== NO_QUEUE) {
      this.#rare!.queue = undefined;
      for (let start = waiting.shift(); start !== undefined; start = waiting.shift()) start();
    }
    this.config.onClosed(this);
  }
}

/**
 * The transport of a server connection whose session sends straight to it, for a feature that
 * sends many texts to one peer (a subscription's items): one call per text instead of three.
 *
 * @param peer - a handler context's peer
 * @returns the transport, or `undefined` for another kind of peer or a session not sending
 *   straight (not started yet, or closed)
 */
export function directTransportOf(peer: Peer): Transport | undefined {
  return peer instanceof ServedConnection ? peer.session.directTransport : undefined;
}

/**
 * How one server serves a transport: its connections are of a subclass whose prototype holds the
 * server's config.
 *
 * @param config - the server's dispatcher, limits and hooks
 * @returns a function that serves a transport (not yet started) with the connection's facts,
 *   and returns the connection (started)
 */
export function connectionMaker(
  config: ConnectionConfig,
): (transport: Transport, context: TransportContext) => Connection {
  class ServerConnection extends ServedConnection {
    protected get config(): ConnectionConfig {
      return config;
    }
  }
  return (transport, context) => {
    const connection = new ServerConnection(context);
    const session = createSession(transport, connection);
    connection.session = session;
    // One function for every connection: the session calls it on its options, the connection.
    session.start(ServedConnection.prototype.answer);
    // A transport that enforces a limit (its own, or the one offered above) delivers nothing larger.
    connection.sizeLimit = transport.maxMessageBytes ?? connection.sizeLimit;
    return connection;
  };
}
