/**
 * The WebSocket server's options: their types and defaults, the names it takes, and the check of
 * its arguments.
 *
 * @module
 */
import type { Server as HttpServer, IncomingMessage } from 'node:http';
import type { Server as HttpsServer } from 'node:https';
import { checkOptionNames, type OptionNames } from '@jsonrpc-kit/core/engine';
import type { HeartbeatOptions } from './heartbeat.js';

/**
 * How long `close()` lets calls in flight finish before closing sockets, in ms.
 *
 * @default 5000
 */
export const DEFAULT_SHUTDOWN_TIMEOUT: number = 5_000;

/** Whether an upgrade's `Origin` may connect. */
export type OriginCheck = (origin: string | undefined, request: IncomingMessage) => boolean;

/** Options of {@link createWebSocketServer}. Give exactly one of `port`, `httpServer`, `noServer`. */
export interface WebSocketServerOptions {
  /** Listen on this port (0 picks a free one) with a server of our own. */
  readonly port?: number | undefined;
  /** The host to listen on with `port`. @default all interfaces */
  readonly host?: string | undefined;
  /** Attach to this HTTP(S) server's `upgrade` event: share its port with an HTTP handler. */
  readonly httpServer?: HttpServer | HttpsServer | undefined;
  /** Listen nowhere; pass upgrades in yourself with `handleUpgrade()`. */
  readonly noServer?: boolean | undefined;
  /** Accept upgrades on this path only (the query string is ignored). @default any path */
  readonly path?: string | undefined;
  /**
   * Browser origins allowed to connect: a list, a function deciding, or `'*'` for any origin.
   * Refused upgrades get HTTP 403. Upgrades without an `Origin` header (non-browser clients) are
   * allowed by the default and by a list; a function decides them itself.
   *
   * @default same origin only: an `Origin` whose host (name and port) is the upgrade's `Host`
   *   header; any other origin, including `null`, is refused, so a page on another site cannot
   *   call the server with its visitors' cookies
   */
  readonly allowedOrigins?: readonly string[] | OriginCheck | '*' | undefined;
  /**
   * The most sockets open at once; further upgrades are refused with HTTP 503.
   *
   * @default DEFAULT_MAX_CONNECTIONS (10000)
   */
  readonly maxConnections?: number | undefined;
  /**
   * The most sockets one remote address may have open at once; further upgrades from it are
   * refused with HTTP 503. Behind a reverse proxy every socket comes from the proxy: raise it.
   *
   * @default DEFAULT_MAX_CONNECTIONS_PER_ADDRESS (1000)
   */
  readonly maxConnectionsPerAddress?: number | undefined;
  /**
   * Milliseconds a socket may stay without a message in either direction (while no call of it is
   * running) before it is closed with 1001 "Idle timeout". A message the server sends counts, as
   * in uWebSockets, so a subscriber that only listens to pushes stays open while they come.
   * Pings and pongs do not count: a peer that only answers pings is idle. `0` keeps idle sockets
   * open.
   *
   * @default 0
   */
  readonly idleTimeout?: number | undefined;
  /**
   * The largest message served, in bytes; the server applies the same limit to this endpoint's
   * connections. A larger message up to twice this size is still read, so that the server can
   * answer a request -32004 with its own id (a notification is not answered; both go to its
   * `onError`) and the connection stays open; a message larger than that closes the socket with
   * 1009 without being read (a WebSocket message cannot be skipped unread).
   *
   * @default the server's `maxMessageBytes` when one was set, else DEFAULT_MAX_MESSAGE_BYTES (1 MiB)
   */
  readonly maxMessageBytes?: number | undefined;
  /**
   * Ping peers silent for `interval` ms; terminate those that do not pong within `timeout` ms
   * (their connection closes and its handlers are aborted). `false` turns it off.
   *
   * @default DEFAULT_HEARTBEAT ({ interval: 30_000, timeout: 10_000 })
   */
  readonly heartbeat?: HeartbeatOptions | false | undefined;
  /**
   * A socket whose send buffer holds more than `highWaterMark` bytes stops being read until it
   * drains; `send()` on it waits for the drain.
   *
   * @default { highWaterMark: DEFAULT_HIGH_WATER_MARK } (1 MiB)
   */
  readonly backpressure?:
    | {
        /** Bytes a socket may buffer before a send waits for it to drain. */
        readonly highWaterMark: number;
      }
    | undefined;
}

/** Options of {@link JsonRpcWebSocketServer.close}. */
export interface WebSocketServerCloseOptions {
  /**
   * Milliseconds calls in flight may take to finish before their sockets are closed anyway.
   *
   * @default DEFAULT_SHUTDOWN_TIMEOUT (5000)
   */
  readonly timeout?: number | undefined;
}

/** Every name of {@link WebSocketServerOptions}. */
const SERVER_OPTION_NAMES: OptionNames<WebSocketServerOptions> = {
  port: true,
  host: true,
  httpServer: true,
  noServer: true,
  path: true,
  allowedOrigins: true,
  maxConnections: true,
  maxConnectionsPerAddress: true,
  idleTimeout: true,
  maxMessageBytes: true,
  heartbeat: true,
  backpressure: true,
};

/** Old option names of {@link createWebSocketServer}, and what replaced them. */
const RENAMED_SERVER_OPTIONS: Readonly<Record<string, string>> = {
  maxPayload: 'maxMessageBytes',
  server: 'httpServer (and the JSON-RPC server as the first argument)',
};

/**
 * Checks the arguments of {@link createWebSocketServer}: a server first, known option names, and
 * exactly one place to listen.
 *
 * @param server - the first argument
 * @param options - the options
 * @throws TypeError when the first argument has no `connect`, or unless exactly one of `port`,
 *   `httpServer`, `noServer` is given
 */
export function checkServerArguments(server: unknown, options: WebSocketServerOptions): void {
  if (typeof (server as { connect?: unknown } | undefined)?.connect !== 'function') {
    throw new TypeError(
      'createWebSocketServer(server, options): the first argument is the JSON-RPC server (or any handler with connect()), the second the options ({ port | httpServer | noServer, … })',
    );
  }
  checkOptionNames('createWebSocketServer', options, SERVER_OPTION_NAMES, RENAMED_SERVER_OPTIONS);
  const modes =
    (options.port !== undefined ? 1 : 0) +
    (options.httpServer !== undefined ? 1 : 0) +
    (options.noServer === true ? 1 : 0);
  if (modes !== 1) {
    throw new TypeError('createWebSocketServer: give exactly one of port, httpServer, noServer');
  }
}
