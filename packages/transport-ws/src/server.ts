/**
 * `createWebSocketServer`: JSON-RPC over WebSocket on `ws`, each accepted socket served by a
 * `ConnectionHandler` (a `@jsonrpc-kit/server` `Server`, or anything with the same `connect`).
 *
 * @module
 */
import {
  createServer as createHttpServer,
  type Server as HttpServer,
  type IncomingMessage,
  STATUS_CODES,
} from 'node:http';
import type { Server as HttpsServer } from 'node:https';
import type { AddressInfo } from 'node:net';
import type { Duplex } from 'node:stream';
import {
  DEFAULT_MAX_MESSAGE_BYTES,
  type JsonRpcParams,
  serializeNotification,
  TransportError,
} from '@jsonrpc-kit/core';
import {
  type ConnectionHandler,
  type ConnectionLike,
  checkOptionNames,
  DEFAULT_HIGH_WATER_MARK,
  DEFAULT_MAX_CONNECTIONS,
  DEFAULT_MAX_CONNECTIONS_PER_ADDRESS,
  type OptionNames,
} from '@jsonrpc-kit/core/engine';
import type { WebSocket } from 'ws';
import { CloseCode } from './close-codes.js';
import {
  createHeartbeatSweeper,
  DEFAULT_HEARTBEAT,
  type HeartbeatOptions,
  type HeartbeatSweeper,
  type WatchedPeer,
} from './heartbeat.js';
import { RESOLVED } from './send-flow.js';
import { SocketContext } from './socket-context.js';
import {
  createServedSocketTransport,
  type SocketSettings,
  type SocketTransport,
  type SocketWatcher,
  watcherOf,
} from './socket-transport.js';
import ws from './ws.cjs';

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

/** A running WebSocket JSON-RPC server. */
export interface JsonRpcWebSocketServer<C extends ConnectionLike = ConnectionLike> {
  /** The live connections, one per socket. */
  readonly connections: ReadonlySet<C>;
  /** Resolves once listening (at once with `httpServer` or `noServer`); rejects if `listen` failed. */
  readonly ready: Promise<void>;
  /** The port listened on (our own server or `httpServer`); `0` when unknown. */
  readonly port: number;
  /**
   * The address listened on.
   *
   * @returns the address, or `null` when not listening (or `noServer`)
   */
  address(): AddressInfo | null;
  /**
   * Sends one notification to every connection, serialized once.
   *
   * @param method - the notification's method
   * @param params - its params
   * @returns resolves when every socket can take more (backpressure)
   * @throws TypeError when `params` cannot be serialized
   */
  broadcast(method: string, params?: JsonRpcParams): Promise<void>;
  /**
   * Takes an upgrade request from your own `upgrade` listener (with `noServer`, or to route
   * several WebSocket endpoints on one server). Applies `path` and `allowedOrigins`, and refuses
   * with 503 while closing or when a connection cap is reached.
   *
   * @param request - the upgrade request
   * @param socket - the network socket
   * @param head - the first packet of the upgraded stream
   */
  handleUpgrade(request: IncomingMessage, socket: Duplex, head: Buffer): void;
  /**
   * Shuts down gracefully: stops accepting, lets calls in flight finish (connections that report
   * `inFlight`) up to `timeout`, then closes every socket with 1001 and stops listening.
   *
   * @param options - the deadline
   * @returns resolves when every socket is closed
   */
  close(options?: WebSocketServerCloseOptions): Promise<void>;
  /** `close()` with the default deadline, for `await using`. */
  [Symbol.asyncDispose](): Promise<void>;
}

/** What every socket of one server shares: the bookkeeping an {@link Entry} updates on close. */
interface Pool<C> {
  readonly entries: Map<C, Entry<C>>;
  readonly connections: Set<C>;
  /** Open sockets per remote address. */
  readonly perAddress: Map<string, number>;
  readonly heartbeat: HeartbeatSweeper | undefined;
  readonly heartbeatTimeout: number;
  /** Open sockets. */
  open: number;
}

/**
 * One served socket: what `close()` and `broadcast()` need, its heartbeat fields, and what its
 * close undoes. A class so that a socket costs its fields, not a closure per callback: the pong
 * and idle listeners are shared by every socket and find their entry through the socket.
 */
class Entry<C> implements WatchedPeer, SocketWatcher {
  readonly socket: WebSocket;
  readonly #pool: Pool<C>;
  readonly #key: string;
  transport!: SocketTransport;
  /** The connection serving the socket; `undefined` until made (or when making it failed). */
  connection: C | undefined;
  idle: ReturnType<typeof setTimeout> | undefined;
  /** The socket closed. */
  gone = false;
  lastSeen: number = Date.now();
  pingSentAt = 0;

  constructor(socket: WebSocket, pool: Pool<C>, key: string) {
    this.socket = socket;
    this.#pool = pool;
    this.#key = key;
    pool.open++;
    pool.perAddress.set(key, (pool.perAddress.get(key) ?? 0) + 1);
  }

  ping(): void {
    this.socket.ping();
  }

  /** A pong came: the peer is alive. */
  alive(): void {
    this.#pool.heartbeat?.alive(this);
  }

  dead(): void {
    this.transport.terminate(
      new TransportError(`Heartbeat: no pong within ${this.#pool.heartbeatTimeout} ms`),
    );
  }

  socketClosed(): void {
    this.gone = true;
    const pool = this.#pool;
    pool.open--;
    const left = pool.perAddress.get(this.#key)! - 1;
    if (left === 0) pool.perAddress.delete(this.#key);
    else pool.perAddress.set(this.#key, left);
    if (this.idle !== undefined) clearTimeout(this.idle);
    const connection = this.connection;
    if (connection === undefined) return;
    pool.heartbeat?.remove(this);
    pool.entries.delete(connection);
    pool.connections.delete(connection);
  }
}

/** A socket's `pong` listener (`this` is the socket): its peer is alive. */
function onPong(this: WebSocket): void {
  watcherOf<Entry<unknown>>(this)?.alive();
}

/**
 * A socket's `message` listener when an idle timeout is set: the socket is not idle. (A frame
 * sent refreshes the timer too, in the socket's transport.)
 */
function onActivity(this: WebSocket): void {
  watcherOf<Entry<unknown>>(this)?.idle?.refresh();
}

/** The idle timer of a socket ran out: close it, unless one of its calls is still running. */
function expireIdle(entry: Entry<ConnectionLike>): void {
  if (entry.connection !== undefined && inFlightOf(entry.connection) > 0) entry.idle!.refresh();
  else if (entry.socket.readyState === 1) entry.socket.close(CloseCode.GoingAway, 'Idle timeout');
}

function pathOf(url: string | undefined): string {
  if (url === undefined) return '/';
  const q = url.indexOf('?');
  return q === -1 ? url : url.slice(0, q);
}

function refuse(socket: Duplex, status: number): void {
  const text = STATUS_CODES[status] ?? 'Error';
  socket.on('error', noop);
  socket.end(
    `HTTP/1.1 ${status} ${text}\r\nConnection: close\r\nContent-Type: text/plain\r\n` +
      `Content-Length: ${Buffer.byteLength(text)}\r\n\r\n${text}`,
  );
  socket.once('finish', () => socket.destroy());
}

/** The default origin policy: no `Origin` (not a browser), or one naming the `Host` itself. */
function sameOrigin(origin: string | undefined, request: IncomingMessage): boolean {
  if (origin === undefined) return true;
  const host = request.headers.host;
  if (host === undefined) return false;
  try {
    const url = new URL(origin);
    // Compared as URL hosts, so a default port written out (`Host: a.example:443`) still matches.
    return url.host === host.toLowerCase() || url.host === new URL(`${url.protocol}//${host}`).host;
  } catch {
    return false; // `null` and other opaque origins, or a malformed Host
  }
}

function originCheck(allowed: WebSocketServerOptions['allowedOrigins']): OriginCheck | undefined {
  if (allowed === '*') return undefined;
  if (allowed === undefined) return sameOrigin;
  if (typeof allowed === 'function') return allowed;
  const set = new Set(allowed.map((origin) => origin.toLowerCase()));
  return (origin) => origin === undefined || set.has(origin.toLowerCase());
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, Math.max(0, ms)));
}

function inFlightOf(connection: ConnectionLike): number {
  const value = (connection as { inFlight?: unknown }).inFlight;
  return typeof value === 'number' ? value : 0;
}

function noop(): void {}

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
 * Serves JSON-RPC over WebSocket: every accepted socket becomes a core `Transport` handed to
 * `server.connect(transport, { kind: 'ws', headers, remoteAddress, url, signal })`, where
 * `headers` are the upgrade request's without those only the handshake reads (`connection`,
 * `upgrade`, `sec-websocket-key`, `sec-websocket-version`, `sec-websocket-extensions`). Where it
 * listens is one of `options.port`, `options.httpServer` (the `ws` package's `server` option) or
 * `options.noServer`.
 * Text frames carry messages; a binary frame is decoded as UTF-8 or refused with a -32700 answer.
 *
 * @param server - serves each socket: the RPC server (`@jsonrpc-kit/server`'s `createServer()`)
 *   or anything with the same `connect`
 * @param options - where to listen, and the limits
 * @returns the running server
 * @throws TypeError unless exactly one of `port`, `httpServer`, `noServer` is given
 * @example
 * ```ts
 * import { createServer } from '@jsonrpc-kit/server';
 * import { createWebSocketServer } from '@jsonrpc-kit/transport-ws';
 *
 * const rpc = createServer();
 * rpc.method('add', ([a, b]: [number, number]) => a + b);
 * const wss = createWebSocketServer(rpc, { port: 8080, path: '/rpc' });
 * await wss.ready;
 * ```
 */
export function createWebSocketServer<C extends ConnectionLike>(
  server: ConnectionHandler<C>,
  options: WebSocketServerOptions,
): JsonRpcWebSocketServer<C> {
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
  const handler = server;
  const path = options.path;
  const checkOrigin = originCheck(options.allowedOrigins);
  const settings: SocketSettings = {
    highWaterMark: options.backpressure?.highWaterMark ?? DEFAULT_HIGH_WATER_MARK,
    answerInvalidFrames: true,
  };
  const maxConnections = options.maxConnections ?? DEFAULT_MAX_CONNECTIONS;
  const maxPerAddress = options.maxConnectionsPerAddress ?? DEFAULT_MAX_CONNECTIONS_PER_ADDRESS;
  const idleTimeout = options.idleTimeout ?? 0;
  /** Open sockets per remote address. */
  const perAddress = new Map<string, number>();
  const heartbeatOptions = options.heartbeat === undefined ? DEFAULT_HEARTBEAT : options.heartbeat;
  const heartbeat =
    heartbeatOptions === false ? undefined : createHeartbeatSweeper(heartbeatOptions);
  const heartbeatTimeout = heartbeatOptions === false ? 0 : heartbeatOptions.timeout;

  const maxMessageBytes =
    options.maxMessageBytes ?? handler.maxMessageBytes ?? DEFAULT_MAX_MESSAGE_BYTES;
  const wss = new ws.WebSocketServer({
    noServer: true,
    clientTracking: false,
    perMessageDeflate: false,
    // Read messages a little over the limit, so that they are refused with their own id.
    maxPayload: maxMessageBytes * 2,
  });
  const pool: Pool<C> = {
    entries: new Map<C, Entry<C>>(),
    connections: new Set<C>(),
    perAddress,
    heartbeat,
    heartbeatTimeout,
    open: 0,
  };
  const { entries, connections } = pool;
  let closing: Promise<void> | undefined;

  const accept = (socket: WebSocket, request: IncomingMessage): void => {
    const entry = new Entry(socket, pool, request.socket.remoteAddress ?? '');
    const transport = createServedSocketTransport(socket, settings, entry);
    entry.transport = transport;
    const context = new SocketContext(request, transport, maxMessageBytes);
    let connection: C;
    try {
      connection = handler.connect(transport, context);
    } catch {
      socket.close(1011, 'Server error');
      return;
    }
    // Closed while being connected: its close has been counted, and nothing is left to watch.
    if (entry.gone) return;
    entry.connection = connection;
    entries.set(connection, entry);
    connections.add(connection);
    if (heartbeat === undefined && idleTimeout <= 0) return;
    if (heartbeat !== undefined) {
      heartbeat.add(entry);
      socket.on('pong', onPong);
    }
    if (idleTimeout > 0) {
      entry.idle = setTimeout(expireIdle, idleTimeout, entry);
      socket.on('message', onActivity);
    }
  };

  /** The status to refuse an upgrade with, or 0 to accept it. */
  const refusal = (request: IncomingMessage): number => {
    if (closing !== undefined) return 503;
    if (path !== undefined && pathOf(request.url) !== path) return 400;
    if (checkOrigin !== undefined) {
      try {
        if (!checkOrigin(request.headers.origin, request)) return 403;
      } catch {
        return 403;
      }
    }
    if (pool.open >= maxConnections) return 503;
    if ((perAddress.get(request.socket.remoteAddress ?? '') ?? 0) >= maxPerAddress) return 503;
    return 0;
  };

  const handleUpgrade = (request: IncomingMessage, socket: Duplex, head: Buffer): void => {
    const status = refusal(request);
    if (status !== 0) refuse(socket, status);
    else wss.handleUpgrade(request, socket, head, (ws) => accept(ws, request));
  };

  let httpServer: HttpServer | HttpsServer | undefined;
  let ownServer: HttpServer | undefined;
  let ready: Promise<void> = RESOLVED;
  const onUpgrade = (request: IncomingMessage, socket: Duplex, head: Buffer): void => {
    // Leave other paths to the other upgrade listeners of a shared server.
    if (
      path !== undefined &&
      pathOf(request.url) !== path &&
      httpServer!.listenerCount('upgrade') > 1
    ) {
      return;
    }
    handleUpgrade(request, socket, head);
  };

  if (options.port !== undefined) {
    const own = createHttpServer((_req, res) => {
      const text = STATUS_CODES[426]!;
      res.writeHead(426, { 'Content-Type': 'text/plain', Connection: 'close' });
      res.end(text);
    });
    ownServer = httpServer = own;
    own.on('upgrade', onUpgrade);
    ready = new Promise<void>((resolve, reject) => {
      own.once('error', reject);
      own.listen(options.port, options.host, () => {
        own.off('error', reject);
        resolve();
      });
    });
    ready.catch(noop);
  } else if (options.httpServer !== undefined) {
    httpServer = options.httpServer;
    httpServer.on('upgrade', onUpgrade);
  }

  const address = (): AddressInfo | null => {
    const value = httpServer?.address();
    return value !== null && typeof value === 'object' ? value : null;
  };

  const closeOne = async (connection: C, entry: Entry<C>, deadline: number): Promise<void> => {
    let open = true;
    void entry.transport.closed.then(() => {
      open = false;
    });
    while (open && inFlightOf(connection) > 0 && Date.now() < deadline) {
      await sleep(Math.min(10, deadline - Date.now()));
    }
    if (!open) return;
    if (entry.socket.readyState === 1) {
      entry.socket.close(CloseCode.GoingAway, 'Server shutting down');
    }
    // The close handshake gets what is left of the deadline, and at least a moment.
    const grace = Math.max(deadline - Date.now(), 200);
    let timer: ReturnType<typeof setTimeout> | undefined;
    await Promise.race([
      entry.transport.closed,
      new Promise<void>((resolve) => {
        timer = setTimeout(resolve, grace);
      }),
    ]);
    clearTimeout(timer);
    if (open) {
      entry.transport.terminate(new TransportError('Server shut down'));
      await entry.transport.closed;
    }
  };

  const close = (closeOptions: WebSocketServerCloseOptions = {}): Promise<void> => {
    if (closing !== undefined) return closing;
    const deadline = Date.now() + (closeOptions.timeout ?? DEFAULT_SHUTDOWN_TIMEOUT);
    const stopped =
      ownServer === undefined
        ? RESOLVED
        : new Promise<void>((resolve) => {
            if (!ownServer!.listening) resolve();
            else ownServer!.close(() => resolve());
          });
    closing = (async () => {
      await Promise.all(
        Array.from(entries, ([connection, entry]) => closeOne(connection, entry, deadline)),
      );
      heartbeat?.stop();
      // A shared server keeps refusing upgrades with 503 until here.
      if (ownServer === undefined) httpServer?.off('upgrade', onUpgrade);
      ownServer?.closeAllConnections();
      await stopped;
      wss.close();
    })();
    return closing;
  };

  return {
    connections,
    ready,
    get port() {
      return address()?.port ?? 0;
    },
    address,
    broadcast(method, params) {
      // Encoded once: every socket is handed the same bytes (see `sendBytes`).
      const bytes = Buffer.from(serializeNotification(method, params));
      let waits: Promise<void>[] | undefined;
      for (const entry of entries.values()) {
        const sent = entry.transport.sendBytes(bytes);
        if (sent !== RESOLVED) (waits ??= []).push(sent.catch(noop));
      }
      return waits === undefined ? RESOLVED : Promise.all(waits).then(noop);
    },
    handleUpgrade,
    close,
    [Symbol.asyncDispose]: () => close(),
  };
}
