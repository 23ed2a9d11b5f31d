/**
 * The client transport's options: their types and defaults, the names it takes, and their
 * resolution into the values the connection, the offline queue and the send path read.
 *
 * @module
 */
import { DEFAULT_CLIENT_MAX_MESSAGE_BYTES, type Transport } from '@jsonrpc-kit/core';
import { checkOptionNames, type OptionNames, resolveBackoff } from '@jsonrpc-kit/core/engine';
import {
  DEFAULT_RECONNECT,
  type ReconnectOptions,
  type ResolvedReconnectOptions,
} from './backoff.js';
import { DEFAULT_HEARTBEAT, type HeartbeatOptions } from './heartbeat.js';

/** Where a client transport is in its life. */
export type WebSocketTransportState = 'connecting' | 'open' | 'reconnecting' | 'closed';

/**
 * Messages a client transport holds while it is not connected.
 *
 * @default 1000
 */
export const DEFAULT_CLIENT_MAX_QUEUE: number = 1000;

/**
 * Milliseconds an opening handshake may take before the attempt counts as failed.
 *
 * @default 10000
 */
export const DEFAULT_CONNECT_TIMEOUT: number = 10_000;

/**
 * Bytes a client socket may buffer before `send()` waits.
 *
 * @default 1048576 (1 MiB)
 */
export const DEFAULT_CLIENT_HIGH_WATER_MARK: number = 1024 * 1024;

/**
 * Milliseconds `close()` waits for the server to answer the close frame before dropping the
 * socket: a frozen server must not hold `close()` for the 30 s of the `ws` close handshake.
 *
 * @default 1000
 */
export const DEFAULT_CLOSE_TIMEOUT: number = 1000;

/** The part of the WHATWG `WebSocket` (and of `ws`) the transport uses. */
export interface WebSocketLike {
  /** `0` connecting, `1` open, `2` closing, `3` closed. */
  readonly readyState: number;
  /** Bytes queued by `send()` and not yet sent. */
  readonly bufferedAmount: number;
  /** How binary messages are delivered (`"arraybuffer"`, `"nodebuffer"`, …). */
  binaryType: string;
  /** Called once the connection is open. */
  onopen: ((event: any) => void) | null;
  /** Called with each message received. */
  onmessage: ((event: { readonly data: unknown }) => void) | null;
  /** Called once the connection is closed, with the close code and reason. */
  onclose: ((event: { readonly code: number; readonly reason: string }) => void) | null;
  /** Called on a connection error (a close follows). */
  onerror: ((event: any) => void) | null;
  /** Queues a text message. */
  send(data: string): void;
  /** Starts the closing handshake. */
  close(code?: number, reason?: string): void;
}

/** A `WebSocket` constructor: the global one, `ws`'s, or any compatible one. */
export type WebSocketConstructor = new (
  url: string,
  protocols?: string | string[],
  options?: any,
) => WebSocketLike;

/** Options of {@link createWebSocketTransport}. */
export interface WebSocketTransportOptions {
  /** The server's `ws:` or `wss:` URL. */
  readonly url: string | URL;
  /** Subprotocols to offer. */
  readonly protocols?: string | readonly string[] | undefined;
  /** Headers of the opening handshake. Only `ws` (Node) can send them; browsers cannot. */
  readonly headers?: Readonly<Record<string, string>> | undefined;
  /**
   * How to reconnect after the socket drops, or `false` to close the transport instead.
   *
   * @default DEFAULT_RECONNECT (exponential from 500 ms to 30 s, jitter 0.5, no attempt limit)
   */
  readonly reconnect?: ReconnectOptions | false | undefined;
  /**
   * Ping the server when silent for `interval` ms and drop the socket (then reconnect) when no
   * pong comes within `timeout` ms. Needs a socket that can ping (`ws`); browsers cannot send
   * pings (they answer the server's), so there it is ignored. `false` turns it off.
   *
   * @default DEFAULT_HEARTBEAT ({ interval: 30_000, timeout: 10_000 })
   */
  readonly heartbeat?: HeartbeatOptions | false | undefined;
  /**
   * How many sends may wait while disconnected (the offline queue); they go out after
   * reconnecting. When it is full (or `false`: no offline queue), `send()` rejects at once with
   * `CONNECTION_CLOSED`. Sends before the first connection opens always wait (up to `maxQueue`, or
   * {@link DEFAULT_CLIENT_MAX_QUEUE} with `false`).
   *
   * @default DEFAULT_CLIENT_MAX_QUEUE (1000)
   */
  readonly maxQueue?: number | false | undefined;
  /**
   * Milliseconds one opening handshake may take, and the first connection may take to open,
   * attempts included. A transport whose first connection has not opened by then (nothing
   * listens, the server refuses the upgrade, the name does not resolve) closes: `start()` and the
   * calls waiting for it fail with a `TransportError` whose `cause` is the last attempt's error
   * (`ECONNREFUSED`, `Unexpected server response: 403`, …). With `reconnect: false` the first
   * failed attempt closes it at once. Once a connection has opened, `reconnect` alone decides.
   *
   * @default DEFAULT_CONNECT_TIMEOUT (10000)
   */
  readonly connectTimeout?: number | undefined;
  /**
   * Bytes the socket may buffer before `send()` waits for them to go out.
   *
   * @default DEFAULT_CLIENT_HIGH_WATER_MARK (1 MiB)
   */
  readonly highWaterMark?: number | undefined;
  /**
   * Milliseconds `close()` waits for the server's answer to the close frame; then the socket is
   * dropped (`terminate()` on `ws`; elsewhere the transport stops waiting and closes).
   *
   * @default DEFAULT_CLOSE_TIMEOUT (1000)
   */
  readonly closeTimeout?: number | undefined;
  /**
   * The largest message taken from the server, in bytes. A larger one is not read whole: `ws`
   * closes the connection with 1009 (message too big), the calls in flight fail with a
   * `ConnectionClosedError` whose `cause` is a `TransportError` naming the limit, and the transport
   * reconnects as after any drop. Applied where the transport opens the socket with `ws` (Node,
   * no `WebSocket` option given): a browser's `WebSocket`, or one passed in the `WebSocket`
   * option, has no such setting.
   *
   * @default DEFAULT_CLIENT_MAX_MESSAGE_BYTES (16 MiB)
   */
  readonly maxMessageBytes?: number | undefined;
  /** The `WebSocket` constructor to use. @default `ws` on Node, the global `WebSocket` elsewhere */
  readonly WebSocket?: WebSocketConstructor | undefined;
  /**
   * Called on every change of {@link WebSocketTransport.state}.
   *
   * @param state - the new state
   * @param previous - the state before
   * @param error - why, when a failure caused the change: for `reconnecting`, why the socket
   *   dropped; for `closed`, why the transport closed (a first connection that could not open
   *   gives a `TransportError` whose `cause` is the refusal). `undefined` for `open` and after
   *   `close()`.
   */
  readonly onStateChange?:
    | ((
        state: WebSocketTransportState,
        previous: WebSocketTransportState,
        error?: Error | undefined,
      ) => void)
    | undefined;
  /** Called after each successful reconnect (after `handler.onReconnect`): resubscribe here. */
  readonly onReconnect?: (() => void) | undefined;
}

/** A reconnecting WebSocket {@link Transport}. */
export interface WebSocketTransport extends Transport {
  /** Where the transport is: `connecting` (first time), `open`, `reconnecting`, `closed`. */
  readonly state: WebSocketTransportState;
  /** Resolves when the transport has closed for good. */
  readonly closed: Promise<void>;
}

/** Every name of {@link WebSocketTransportOptions}. */
const CLIENT_OPTION_NAMES: OptionNames<WebSocketTransportOptions> = {
  url: true,
  protocols: true,
  headers: true,
  reconnect: true,
  heartbeat: true,
  maxQueue: true,
  connectTimeout: true,
  highWaterMark: true,
  closeTimeout: true,
  maxMessageBytes: true,
  WebSocket: true,
  onStateChange: true,
  onReconnect: true,
};

/** Old option names of {@link createWebSocketTransport}, and what replaced them. */
const RENAMED_CLIENT_OPTIONS: Readonly<Record<string, string>> = {
  maxPayload: 'maxMessageBytes',
  queue: 'maxQueue (a number, or false to fail sends at once while disconnected)',
};

/** {@link WebSocketTransportOptions}, checked and with every default applied. Internal. */
export interface ResolvedClientOptions {
  /** The options as given (handshake headers, `WebSocket`, the hooks are read from them). */
  readonly options: WebSocketTransportOptions;
  readonly url: string;
  readonly protocols: string | string[] | undefined;
  readonly reconnect: ResolvedReconnectOptions | false;
  readonly heartbeat: HeartbeatOptions | false;
  /** Whether sends wait while disconnected once a connection has opened. */
  readonly queueEnabled: boolean;
  readonly maxQueue: number;
  readonly connectTimeout: number;
  readonly highWaterMark: number;
  readonly closeTimeout: number;
  readonly maxMessageBytes: number;
}

/**
 * Checks the option names and resolves the options.
 *
 * @param options - the options of {@link createWebSocketTransport}
 * @returns them resolved
 * @throws RangeError when the reconnect options are out of range, or `maxMessageBytes` is not positive
 */
export function resolveClientOptions(options: WebSocketTransportOptions): ResolvedClientOptions {
  checkOptionNames(
    'createWebSocketTransport',
    options,
    CLIENT_OPTION_NAMES,
    RENAMED_CLIENT_OPTIONS,
  );
  const url = String(options.url);
  const protocols =
    options.protocols === undefined
      ? undefined
      : typeof options.protocols === 'string'
        ? options.protocols
        : [...options.protocols];
  const reconnect: ResolvedReconnectOptions | false =
    options.reconnect === false
      ? false
      : options.reconnect === undefined
        ? DEFAULT_RECONNECT
        : resolveBackoff(options.reconnect, DEFAULT_RECONNECT, 'reconnect', {});
  const heartbeat = options.heartbeat === undefined ? DEFAULT_HEARTBEAT : options.heartbeat;
  const queueEnabled = options.maxQueue !== false;
  const maxQueue =
    options.maxQueue === false || options.maxQueue === undefined
      ? DEFAULT_CLIENT_MAX_QUEUE
      : options.maxQueue;
  const connectTimeout = options.connectTimeout ?? DEFAULT_CONNECT_TIMEOUT;
  const highWaterMark = options.highWaterMark ?? DEFAULT_CLIENT_HIGH_WATER_MARK;
  const closeTimeout = options.closeTimeout ?? DEFAULT_CLOSE_TIMEOUT;
  const maxMessageBytes = options.maxMessageBytes ?? DEFAULT_CLIENT_MAX_MESSAGE_BYTES;
  if (!(maxMessageBytes > 0))
    throw new RangeError(`maxMessageBytes must be > 0, got ${maxMessageBytes}`);

  return {
    options,
    url,
    protocols,
    reconnect,
    heartbeat,
    queueEnabled,
    maxQueue,
    connectTimeout,
    highWaterMark,
    closeTimeout,
    maxMessageBytes,
  };
}
