/**
 * One served duplex transport: answers the peer's calls through the dispatcher, and calls the peer
 * back (`notify`, `request`), correlating its answers.
 *
 * @module
 */
import {
  asyncDisposeSymbol,
  type CancellationProtocol,
  ConnectionClosedError,
  createPendingCalls,
  type JsonRpcId,
  type JsonRpcParams,
  type MessageEnvelope,
  type ParseResult,
  type RequestOptions,
  RequestTooLargeError,
  scanEnvelope,
  serializeNotification,
  serializeRequest,
  type Transport,
  type TransportContext,
  TransportError,
} from '@jsonrpc-kit/core';
import type { Call } from './call.js';
import type { Dispatcher, Scope } from './dispatch.js';
import { createLimiter } from './limiter.js';
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
  readonly cancellation: CancellationProtocol | undefined;
  readonly report: (error: unknown, info: ErrorInfo) => void;
  readonly onClosed: (connection: Connection) => void;
}

const TRANSPORT_INFO: ErrorInfo = Object.freeze({
  kind: 'transport-error',
  level: 'warn',
  notification: false,
});
const START_FAILED_INFO: ErrorInfo = Object.freeze({ ...TRANSPORT_INFO, level: 'error' });

/** What a failed send of an answer is reported as: routine when the peer had gone. */
function sendFailedInfo(error: unknown, parsed: ParseResult | undefined): ErrorInfo {
  const level = error instanceof ConnectionClosedError ? 'debug' : 'warn';
  const kind = 'send-failed';
  if (parsed?.kind !== 'request') return { kind, level, notification: false };
  const { method, id } = parsed.message;
  return { kind, level, method, id, notification: false };
}

function asError(error: unknown): Error {
  return error instanceof Error ? error : new TransportError(String(error));
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
  const { dispatcher, cancellation, report } = config;
  /** The connection's size limit: the transport's own when it enforces one, else the server's. */
  let maxRequestBytes = context.maxRequestBytes ?? config.maxRequestBytes;
  const pending = createPendingCalls();
  const running = new Map<JsonRpcId, Call>();
  const calls = new Set<Call>();
  const limiter = createLimiter(config.maxConcurrency, config.maxQueue);
  let nextId = 1;
  let isClosed = false;
  let resolveClosed!: () => void;
  const closed = new Promise<void>((resolve) => {
    resolveClosed = resolve;
  });

  /** Sends an answer (to `parsed`, when known) or a notification nobody waits on. */
  const send = (text: string, parsed?: ParseResult): void => {
    if (isClosed) return;
    transport.send(text).catch((error: unknown) => {
      if (!isClosed) report(error, sendFailedInfo(error, parsed));
    });
  };

  const shutdown = (error?: Error): void => {
    if (isClosed) return;
    isClosed = true;
    const reason = new ConnectionClosedError(
      'Connection closed',
      error === undefined ? undefined : { cause: error },
    );
    for (const call of calls) call.abort(reason);
    calls.clear();
    running.clear();
    // Waiting calls are aborted now: starting them only rejects them.
    for (const start of limiter.queue.splice(0)) start();
    pending.rejectAll(
      (call) =>
        new ConnectionClosedError('Connection closed', {
          method: call.method,
          id: call.id,
          ...(error === undefined ? {} : { cause: error }),
        }),
    );
    config.onClosed(connection);
    resolveClosed();
  };

  /** A message too large to parse: answer a request with its own id, report every one. */
  const refuse = (envelope: MessageEnvelope, error: Error): void => {
    if (isClosed) return;
    const answer = refuseTooLarge(envelope, maxRequestBytes, error, report);
    if (answer !== undefined) send(answer);
    else if (envelope.kind === 'response') pending.reject(envelope.id, error);
  };

  const onMessage = (text: string): void => {
    if (isClosed) return;
    if (exceedsUtf8Bytes(text, maxRequestBytes)) {
      const error = new RequestTooLargeError(undefined, { maxRequestBytes });
      refuse(scanEnvelope(text), error);
      return;
    }
    const parsed = dispatcher.parse(text);
    const out = dispatcher.answer(parsed, scope);
    if (out === undefined) return;
    if (typeof out === 'string') send(out, parsed);
    else
      out.then((answer) => {
        if (answer !== undefined) send(answer, parsed);
      });
  };

  const connection: Connection = {
    context,
    get inFlight() {
      return limiter.active;
    },
    closed,
    notify(method: string, params?: JsonRpcParams): Promise<void> {
      if (isClosed) return Promise.reject(new ConnectionClosedError(undefined, { method }));
      let text: string;
      try {
        text = serializeNotification(method, params);
      } catch (error) {
        return Promise.reject(error);
      }
      return transport.send(text);
    },
    request<T = unknown>(
      method: string,
      params?: JsonRpcParams,
      options?: RequestOptions,
    ): Promise<T> {
      if (isClosed) return Promise.reject(new ConnectionClosedError(undefined, { method }));
      const id = nextId++;
      let text: string;
      try {
        text = serializeRequest(id, method, params);
      } catch (error) {
        return Promise.reject(error);
      }
      const result = pending.add(id, method, {
        timeout: options?.timeout ?? config.requestTimeout,
        signal: options?.signal,
        onGiveUp:
          cancellation === undefined
            ? undefined
            : (_reason, giveUpId) =>
                send(serializeNotification(cancellation.method, cancellation.toParams(giveUpId))),
      });
      transport.send(text).catch((error: unknown) => {
        pending.reject(id, asError(error));
      });
      return result as Promise<T>;
    },
    close(reason?: unknown): Promise<void> {
      shutdown();
      return transport.close(reason).then(
        () => closed,
        () => closed,
      );
    },
    [asyncDisposeSymbol]: () => connection.close(),
  };

  const scope: Scope = {
    transport: context,
    peer: connection,
    limiter,
    client: undefined,
    running,
    calls,
    onResponse: (parsed) => {
      if (!pending.settle(parsed.message)) {
        report(
          new TransportError(`Unexpected response with id ${JSON.stringify(parsed.message.id)}`),
          {
            kind: 'unexpected-response',
            level: 'warn',
            id: parsed.message.id,
            notification: false,
          },
        );
      }
    },
    outer: undefined,
  };

  transport
    .start({
      onMessage,
      onTooLarge: refuse,
      maxMessageBytes: config.setRequestBytes,
      onClose: (error) => shutdown(error),
      onError: (error) => report(error, TRANSPORT_INFO),
      onDisconnect: (error) =>
        pending.rejectAll(
          (call) =>
            new ConnectionClosedError('Connection lost', {
              method: call.method,
              id: call.id,
              ...(error === undefined ? {} : { cause: error }),
            }),
        ),
    })
    .catch((error: unknown) => {
      report(error, START_FAILED_INFO);
      shutdown(asError(error));
    });
  // A transport that enforces a limit (its own, or the one offered above) delivers nothing larger.
  maxRequestBytes = transport.maxMessageBytes ?? maxRequestBytes;

  return connection;
}
