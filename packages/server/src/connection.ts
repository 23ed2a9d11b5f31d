/**
 * One served duplex transport: core's session (which owns the transport, the outgoing and
 * incoming call tables, cancellation and progress) answering through the server's dispatcher,
 * with the server's size limit and a concurrency limiter per connection.
 *
 * @module
 */
import {
  asyncDisposeSymbol,
  type ErrorInfo as CoreErrorInfo,
  createSession,
  type JsonRpcParams,
  type MessageEnvelope,
  type ParseResult,
  type Peer,
  type Profile,
  type RequestOptions,
  RequestTooLargeError,
  type Session,
  type SessionOptions,
  scanEnvelope,
  type Transport,
  type TransportContext,
} from '@jsonrpc-kit/core';
import type { Dispatcher, Scope } from './dispatch.js';
import { createLimiter, type Limiter } from './limiter.js';
import { refuseTooLarge } from './too-large.js';
import type { Connection, ErrorInfo } from './types.js';
import { exceedsUtf8Bytes } from './utf8.js';

/** What a connection needs from its server. */
export interface ConnectionConfig {
  readonly dispatcher: Dispatcher;
  /** The server's limit, its default included. */
  readonly maxRequestBytes: number;
  /** The limit the user set on the server, offered to the transport; `undefined` when none. */
  readonly setRequestBytes: number | undefined;
  readonly maxConcurrency: number;
  readonly maxQueue: number;
  readonly requestTimeout: number;
  readonly profile: Profile<any> | undefined;
  readonly report: (error: unknown, info: ErrorInfo) => void;
  readonly onClosed: (connection: Connection) => void;
}

/**
 * One served transport as the server's users see it. A class: its methods live once on the
 * prototype instead of as closures in every connection.
 */
class ServedConnection implements Connection {
  readonly context: TransportContext;
  readonly #session: Session;
  readonly #limiter: Limiter;

  constructor(context: TransportContext, session: Session, limiter: Limiter) {
    this.context = context;
    this.#session = session;
    this.#limiter = limiter;
  }

  /** Resolves when the connection has closed; made on first read. */
  get closed(): Promise<void> {
    return this.#session.closed;
  }

  get inFlight(): number {
    return this.#limiter.active;
  }

  notify(method: string, params?: JsonRpcParams): Promise<void> {
    return this.#session.notify(method, params);
  }

  sendText(text: string): Promise<void> {
    return this.#session.send(text);
  }

  request<T = unknown>(
    method: string,
    params?: JsonRpcParams,
    options?: RequestOptions,
  ): Promise<T> {
    return this.#session.request(method, params, options) as Promise<T>;
  }

  close(reason?: unknown): Promise<void> {
    return this.#session.close(reason);
  }

  [asyncDisposeSymbol](): Promise<void> {
    return this.#session.close();
  }

  /** See {@link directTransportOf}. */
  static directTransportOf(peer: Peer): Transport | undefined {
    return #session in peer ? peer.#session.directTransport : undefined;
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
  return ServedConnection.directTransportOf(peer);
}

/**
 * The session options of one connection. A class: the hooks the session calls (`screen`,
 * `onTooLarge`, `report`, `onClose`) are methods on the prototype, called on this object, so a
 * connection holds their fields instead of a closure each.
 */
class ConnectionHooks implements SessionOptions {
  readonly profile: Profile<any> | undefined;
  readonly sendCancel = true;
  readonly requestTimeout: number;
  readonly parse: (text: string) => ParseResult;
  readonly maxMessageBytes: number | undefined;
  readonly #config: ConnectionConfig;
  readonly #limiter: Limiter;
  /** The connection's size limit: the transport's own when it enforces one, else the server's. */
  maxRequestBytes: number;
  session!: Session;
  connection!: Connection;

  constructor(config: ConnectionConfig, limiter: Limiter, maxRequestBytes: number) {
    this.profile = config.profile;
    this.requestTimeout = config.requestTimeout;
    this.parse = config.dispatcher.parse;
    this.maxMessageBytes = config.setRequestBytes;
    this.#config = config;
    this.#limiter = limiter;
    this.maxRequestBytes = maxRequestBytes;
  }

  screen(text: string): boolean {
    if (!exceedsUtf8Bytes(text, this.maxRequestBytes)) return false;
    this.onTooLarge(
      scanEnvelope(text),
      new RequestTooLargeError(undefined, { maxRequestBytes: this.maxRequestBytes }),
    );
    return true;
  }

  /** A message too large to parse: answer a request with its own id, report every one. */
  onTooLarge(envelope: MessageEnvelope, error: Error): void {
    const session = this.session;
    if (session.isClosed) return;
    const answer = refuseTooLarge(envelope, this.maxRequestBytes, error, this.#config.report);
    if (answer !== undefined) session.sendDetached(answer);
    else if (envelope.kind === 'response') session.reject(envelope.id, error);
  }

  report(error: Error, info: CoreErrorInfo): void {
    this.#config.report(error, { ...info, notification: info.kind === 'notification-failed' });
  }

  onClose(): void {
    // Waiting calls were aborted: starting them only rejects them.
    for (const start of this.#limiter.queue.splice(0)) start();
    this.#config.onClosed(this.connection);
  }
}

/**
 * Serves a transport.
 *
 * @param transport - the transport, not yet started
 * @param context - facts about the connection
 * @param config - the server's dispatcher, limits and hooks
 * @returns the connection (started)
 */
export function createConnection(
  transport: Transport,
  context: TransportContext,
  config: ConnectionConfig,
): Connection {
  const { dispatcher } = config;
  const limiter = createLimiter(config.maxConcurrency, config.maxQueue);
  const hooks = new ConnectionHooks(
    config,
    limiter,
    context.maxRequestBytes ?? config.maxRequestBytes,
  );
  const session = createSession(transport, hooks);
  const connection = new ServedConnection(context, session, limiter);
  hooks.session = session;
  hooks.connection = connection;
  const scope: Scope = {
    transport: context,
    peer: connection,
    limiter,
    client: undefined,
    session,
    outer: undefined,
  };
  session.start((parsed) => dispatcher.answer(parsed, scope));
  // A transport that enforces a limit (its own, or the one offered above) delivers nothing larger.
  hooks.maxRequestBytes = transport.maxMessageBytes ?? hooks.maxRequestBytes;
  return connection;
}
