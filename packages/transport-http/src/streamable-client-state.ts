/**
 * What one Streamable HTTP client transport holds: its options, resolved once, its session (id,
 * protocol version, the GET stream's state) and its owner. The parts of the transport (the POST
 * exchange, the GET stream and resumption) take it as their first argument, so that they live in
 * files of their own.
 *
 * @module
 */
import { DEFAULT_CLIENT_MAX_MESSAGE_BYTES, type TransportHandler } from '@jsonrpc-kit/core';
import { type ResolvedBackoffOptions, resolveBackoff } from '@jsonrpc-kit/core/engine';
import { checkHttpOptions } from './option-names.js';
import type { FetchLike } from './post-transport.js';
import {
  DEFAULT_STREAMABLE_RECONNECT,
  RENAMED_RECONNECT,
  type StreamableHttpTransportOptions,
} from './streamable-transport-options.js';

const MCP_VERSION_HEADER = 'mcp-protocol-version';

function lowerCase(headers: Readonly<Record<string, string>>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const name of Object.keys(headers)) out[name.toLowerCase()] = headers[name]!;
  return out;
}

/** One Streamable HTTP client transport's resolved options and session. Internal. */
export class StreamableClientState {
  readonly options: StreamableHttpTransportOptions;
  readonly url: string;
  /** The `fetch` to use; called as a plain function (a browser's `fetch` needs no `this`). */
  readonly doFetch: FetchLike;
  /** The header that carries the session id, lower case. */
  readonly sessionHeader: string;
  readonly reconnect: ResolvedBackoffOptions;
  readonly maxMessageBytes: number;
  /** Aborted by `close()`: every exchange and stream ends with it. */
  readonly closer: AbortController = new AbortController();
  handler: TransportHandler | undefined = undefined;
  /** Messages that came before `start()`. */
  readonly inbox: string[] = [];
  closed = false;
  sessionId: string | undefined = undefined;
  protocolVersion: string | undefined = undefined;
  getStream: 'off' | 'opening' | 'unsupported' = 'off';
  getLastEventId: string | undefined = undefined;
  /** Aborts the GET stream that is open, when it is no longer wanted. */
  getAbort: AbortController | undefined = undefined;
  pushWanted = false;
  /** The server gave no session id: it has no sessions, so POSTs need not wait for one. */
  sessionless = false;
  /** While the first POST without a session id is on its way, others wait for its id. */
  starting: Promise<void> | undefined = undefined;

  /**
   * Checks and resolves the options.
   *
   * @param options - the options of `createStreamableHttpTransport`
   * @throws TypeError when no `fetch` is given and the runtime has none
   */
  constructor(options: StreamableHttpTransportOptions) {
    checkHttpOptions('createStreamableHttpTransport', options);
    this.options = options;
    this.url = String(options.url);
    let fetchFn = options.fetch;
    if (fetchFn === undefined) {
      if (typeof globalThis.fetch !== 'function') {
        throw new TypeError(
          'createStreamableHttpTransport: no fetch in this runtime; pass options.fetch',
        );
      }
      fetchFn = (input, init) => globalThis.fetch(input, init);
    }
    this.doFetch = fetchFn;
    this.sessionHeader = (options.sessionHeader ?? 'mcp-session-id').toLowerCase();
    this.reconnect = resolveBackoff(
      options.reconnect ?? {},
      DEFAULT_STREAMABLE_RECONNECT,
      'createStreamableHttpTransport: reconnect',
      RENAMED_RECONNECT,
    );
    this.maxMessageBytes = options.maxMessageBytes ?? DEFAULT_CLIENT_MAX_MESSAGE_BYTES;
  }

  /** Whether the GET stream is wanted: asked for by the options, or by the owner's subscriptions. */
  wanted(): boolean {
    return this.options.stream === true || this.pushWanted;
  }

  /** Tells the owner of a problem that fails no call. */
  readonly report = (error: unknown): void => {
    this.handler?.onError?.(error instanceof Error ? error : new Error(String(error)));
  };

  /** Hands a message to the owner, or keeps it until `start()`. */
  deliver(text: string): void {
    const handler = this.handler;
    if (handler === undefined) {
      this.inbox.push(text);
      return;
    }
    try {
      handler.onMessage(text);
    } catch (error) {
      this.report(error);
    }
  }

  /** A request's headers: `extra`, the user's, the session id and the protocol version. */
  async headers(extra: Record<string, string>): Promise<Record<string, string>> {
    const option = this.options.headers;
    const user = option === undefined ? {} : typeof option === 'function' ? await option() : option;
    const out: Record<string, string> = { ...extra, ...lowerCase(user) };
    if (this.sessionId !== undefined) out[this.sessionHeader] = this.sessionId;
    if (this.protocolVersion !== undefined) out[MCP_VERSION_HEADER] = this.protocolVersion;
    return out;
  }

  /** Forgets the session, and ends its GET stream. */
  expire(): void {
    this.sessionId = undefined;
    this.protocolVersion = undefined;
    this.getLastEventId = undefined;
    this.getAbort?.abort();
  }

  /**
   * The server no longer knows the session: calls in flight on it will not be answered, the
   * application may start a new one (`onSessionExpired`), and the owner is told the transport
   * reconnected, so a client subscribes again.
   */
  lose(error: Error, disconnect: boolean): void {
    this.expire();
    if (disconnect) this.handler?.onDisconnect?.(error);
    // The hook's type is `() => void`, which an async function fits: its promise is awaited.
    void new Promise<unknown>((resolve) => resolve(this.options.onSessionExpired?.()))
      .catch(this.report)
      .then(() => {
        if (!this.closed) this.handler?.onReconnect?.();
      });
  }
}
