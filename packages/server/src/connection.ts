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
  type Profile,
  type RequestOptions,
  RequestTooLargeError,
  type Session,
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
  readonly closed: Promise<void>;
  /**
   * The session's own send, not a method forwarding to it: a broadcast calls it once per
   * subscriber, and one call less per delivery is what a hot loop over many connections feels.
   */
  readonly sendText: (text: string) => Promise<void>;
  readonly #session: Session;
  readonly #limiter: Limiter;

  constructor(context: TransportContext, session: Session, limiter: Limiter) {
    this.context = context;
    this.closed = session.closed;
    this.sendText = session.send;
    this.#session = session;
    this.#limiter = limiter;
  }

  get inFlight(): number {
    return this.#limiter.active;
  }

  notify(method: string, params?: JsonRpcParams): Promise<void> {
    return this.#session.notify(method, params);
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
  const { dispatcher, report } = config;
  /** The connection's size limit: the transport's own when it enforces one, else the server's. */
  let maxRequestBytes = context.maxRequestBytes ?? config.maxRequestBytes;
  const limiter = createLimiter(config.maxConcurrency, config.maxQueue);

  /** A message too large to parse: answer a request with its own id, report every one. */
  const refuse = (envelope: MessageEnvelope, error: Error): void => {
    if (session.isClosed) return;
    const answer = refuseTooLarge(envelope, maxRequestBytes, error, report);
    if (answer !== undefined) session.sendDetached(answer);
    else if (envelope.kind === 'response') session.reject(envelope.id, error);
  };

  const session = createSession(transport, {
    profile: config.profile,
    sendCancel: true,
    requestTimeout: config.requestTimeout,
    screen: (text) => {
      if (!exceedsUtf8Bytes(text, maxRequestBytes)) return false;
      refuse(scanEnvelope(text), new RequestTooLargeError(undefined, { maxRequestBytes }));
      return true;
    },
    parse: dispatcher.parse,
    onTooLarge: refuse,
    maxMessageBytes: config.setRequestBytes,
    report: (error: Error, info: CoreErrorInfo) =>
      report(error, { ...info, notification: info.kind === 'notification-failed' }),
    onClose: () => {
      // Waiting calls were aborted: starting them only rejects them.
      for (const start of limiter.queue.splice(0)) start();
      config.onClosed(connection);
    },
  });

  const connection = new ServedConnection(context, session, limiter);
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
  maxRequestBytes = transport.maxMessageBytes ?? maxRequestBytes;
  return connection;
}
