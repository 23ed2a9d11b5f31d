/**
 * `createWebSocketServer`: JSON-RPC over WebSocket on `ws`, each accepted socket served by a
 * `ConnectionHandler` (a `@jsonrpc-kit/server` `Server`, or anything with the same `connect`).
 * Its options are in `server-options.ts`, which upgrades it takes in `server-upgrade.ts`, and the
 * sockets it serves in `served-socket.ts`.
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
} from '@jsonrpc-kit/core';
import {
  type ConnectionHandler,
  type ConnectionLike,
  DEFAULT_HIGH_WATER_MARK,
  DEFAULT_MAX_CONNECTIONS,
  DEFAULT_MAX_CONNECTIONS_PER_ADDRESS,
} from '@jsonrpc-kit/core/engine';
import type { WebSocket } from 'ws';
import { createHeartbeatSweeper, DEFAULT_HEARTBEAT } from './heartbeat.js';
import { noop } from './noop.js';
import { RESOLVED } from './send-flow.js';
import { closeServed, Entry, expireIdle, onActivity, onPong, type Pool } from './served-socket.js';
import {
  checkServerArguments,
  DEFAULT_SHUTDOWN_TIMEOUT,
  type WebSocketServerCloseOptions,
  type WebSocketServerOptions,
} from './server-options.js';
import { originCheck, pathOf, refuse } from './server-upgrade.js';
import { SocketContext } from './socket-context.js';
import { createServedSocketTransport } from './socket-transport.js';
import type { SocketSettings } from './socket-types.js';
import ws from './ws.cjs';

export type { WebSocketServerOptions } from './server-options.js';

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
  checkServerArguments(server, options);
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
        Array.from(entries, ([connection, entry]) => closeServed(connection, entry, deadline)),
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
