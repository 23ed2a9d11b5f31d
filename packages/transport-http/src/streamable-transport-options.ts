/**
 * The Streamable HTTP client transport's options and shape: what `createStreamableHttpTransport`
 * takes (its reconnection, core's backoff shape with this transport's defaults) and the transport
 * it returns. Declared apart from the transport so that the option-name check can name them
 * without importing it.
 *
 * @module
 */
import type {
  BackoffOptions,
  DEFAULT_CLIENT_MAX_MESSAGE_BYTES,
  Transport,
} from '@jsonrpc-kit/core';
import type { ResolvedBackoffOptions } from '@jsonrpc-kit/core/engine';
import type { FetchLike, HttpHeadersOption } from './post-transport.js';

/**
 * Reconnection of the GET stream and of dropped answer streams: core's backoff shape
 * ({@link BackoffOptions}: `strategy`, `delay`, `maxDelay`, `jitter`, `maxAttempts`), with
 * {@link DEFAULT_STREAMABLE_RECONNECT} for what is unset. A server's SSE `retry` field replaces
 * `delay`. After `maxAttempts` failed attempts in a row, `onError` is told and the stream is left.
 *
 * @example
 * ```ts
 * const reconnect: StreamableReconnectOptions = { delay: 250, maxDelay: 5000, maxAttempts: 10 };
 * ```
 */
export type StreamableReconnectOptions = BackoffOptions;

/**
 * How the Streamable HTTP client reconnects its streams: exponential from 500 ms up to 30 s, no
 * jitter, five failed attempts in a row.
 *
 * @default { strategy: 'exponential', delay: 500, maxDelay: 30_000, jitter: 0, maxAttempts: 5 }
 */
export const DEFAULT_STREAMABLE_RECONNECT: ResolvedBackoffOptions = Object.freeze({
  strategy: 'exponential',
  delay: 500,
  maxDelay: 30_000,
  jitter: 0,
  maxAttempts: 5,
});

/** The reconnect options' old names, and what replaced them. */
export const RENAMED_RECONNECT: Readonly<Record<string, string>> = {
  initialDelay: 'delay',
  maxRetries: 'maxAttempts',
};

/** Options of {@link createStreamableHttpTransport}. */
export interface StreamableHttpTransportOptions {
  /** The endpoint. */
  readonly url: string | URL;
  /** Extra request headers, or a function returning them (called before every request). */
  readonly headers?: HttpHeadersOption;
  /**
   * The `fetch` to use.
   *
   * @default globalThis.fetch
   */
  readonly fetch?: FetchLike;
  /**
   * The header that carries the session id.
   *
   * @default 'mcp-session-id'
   */
  readonly sessionHeader?: string;
  /**
   * Open the session's GET stream (server push not tied to a request) once a session exists,
   * and keep it open. Without it, the stream is open while the client holds live subscriptions
   * (`client.subscribe()`). A server that answers it 405 offers none; the transport then stops
   * asking.
   *
   * @default false
   */
  readonly stream?: boolean;
  /** Reconnection with backoff. */
  readonly reconnect?: StreamableReconnectOptions;
  /**
   * Called when the server no longer knows the session (404): the session id is dropped, so the
   * next message starts a new session (send `initialize` again here; a returned promise is
   * awaited). Then the owner is told the transport reconnected, so a client subscribes again
   * (`onResubscribed`).
   */
  readonly onSessionExpired?: () => void;
  /**
   * The largest message taken: a JSON answer's body in bytes (counted as they arrive), an event of
   * a stream in characters (each at least one byte). A JSON answer over it is dropped at once, its
   * exchange aborted, and `send` rejects with a `TransportError` saying the answer was too large;
   * a stream whose event grows past it is dropped: the requests it owed an answer fail with a
   * `TransportError`, and the GET stream counts a failed attempt to reconnect.
   *
   * @default {@link DEFAULT_CLIENT_MAX_MESSAGE_BYTES} (16 MiB)
   */
  readonly maxMessageBytes?: number;
}

/** A Streamable HTTP client transport, with its session. */
export interface StreamableHttpTransport extends Transport {
  /** The session id the server assigned, once it did. */
  readonly sessionId: string | undefined;
  /**
   * Ends the session on the server (DELETE) and forgets it.
   *
   * @returns resolves once the server answered
   */
  endSession(): Promise<void>;
}
