/**
 * `listen(server, options)`: a node:http server for a JSON-RPC server, in one call.
 *
 * @module
 */
import type { Server, ServerOptions } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import {
  checkOptionNames,
  DEFAULT_MAX_CONNECTIONS,
  DEFAULT_MAX_CONNECTIONS_PER_ADDRESS,
  type MessageHandler,
  type OptionNames,
} from '@jsonrpc-kit/core/engine';
import type { HttpHandlerOptions } from './handler-options.js';
import { createHttpHandler } from './node-handler.js';
import { HANDLER_OPTION_NAMES, RENAMED_HTTP_OPTIONS } from './option-names.js';

/** Options of {@link listen}: where to listen, plus every handler option. */
export interface ListenOptions extends HttpHandlerOptions {
  /**
   * The TCP port; `0` picks a free one.
   *
   * @default 0
   */
  readonly port?: number;
  /**
   * The interface to bind.
   *
   * @default '127.0.0.1'
   */
  readonly host?: string;
  /**
   * The most connections open at once; a connection past it is answered 503 and closed.
   *
   * @default DEFAULT_MAX_CONNECTIONS (10000)
   */
  readonly maxConnections?: number;
  /**
   * The most connections one remote address may have open at once; past it, 503 and close.
   * Behind a reverse proxy every connection comes from the proxy: raise it there.
   *
   * @default DEFAULT_MAX_CONNECTIONS_PER_ADDRESS (1000)
   */
  readonly maxConnectionsPerAddress?: number;
  /**
   * Options of the node:http server (timeouts, header limits, keep-alive). `listen()` sets
   * `headersTimeout` to {@link DEFAULT_HEADERS_TIMEOUT}, `requestTimeout` to
   * {@link DEFAULT_REQUEST_TIMEOUT} and checks them every second (`connectionsCheckingInterval`);
   * values given here win.
   */
  readonly serverOptions?: ServerOptions;
}

/** A listening HTTP server. */
export interface HttpListener {
  /** `http://host:port/`. */
  readonly url: string;
  /** The bound port. */
  readonly port: number;
  /** The node:http server. */
  readonly httpServer: Server;
  /** Stops accepting connections, closes idle keep-alive sockets, and waits for the rest. */
  close(): Promise<void>;
  /** Same as {@link HttpListener.close}, for `await using`. */
  [Symbol.asyncDispose](): Promise<void>;
}

/** The default port of {@link listen}: any free port. @default 0 */
export const DEFAULT_PORT: number = 0;
/** The default host of {@link listen}: loopback only. @default '127.0.0.1' */
export const DEFAULT_HOST: string = '127.0.0.1';

/**
 * Milliseconds {@link listen}'s server waits for a request's headers (Node's default is 60 s,
 * which lets a client dribbling header bytes hold a connection for a minute).
 *
 * @default 10000
 */
export const DEFAULT_HEADERS_TIMEOUT: number = 10_000;

/**
 * Milliseconds {@link listen}'s server waits for a whole request, headers and body (Node's
 * default is 300 s). The handler's own `bodyTimeout` (30 s) answers first, with a JSON-RPC body.
 *
 * @default 60000
 */
export const DEFAULT_REQUEST_TIMEOUT: number = 60_000;

/** How often node:http checks the header and request timeouts, in ms (Node's default: 30 s). */
const TIMEOUT_CHECK_INTERVAL = 1_000;

/** The answer to a connection past a cap, written as raw bytes before the socket is ended. */
const FULL_ANSWER =
  'HTTP/1.1 503 Service Unavailable\r\nConnection: close\r\nRetry-After: 1\r\n' +
  'Content-Type: text/plain\r\nContent-Length: 19\r\n\r\nService Unavailable';

/**
 * Counts the server's connections, in total and per remote address, and answers those past a
 * cap with 503 (they never reach the handler).
 *
 * @returns a guard for requests: `false` for a request on a refused connection
 */
function capConnections(
  httpServer: Server,
  maxConnections: number,
  maxPerAddress: number,
): (socket: Socket) => boolean {
  const refused = new WeakSet<Socket>();
  const perAddress = new Map<string, number>();
  let open = 0;
  httpServer.on('connection', (socket: Socket) => {
    const key = socket.remoteAddress ?? '';
    const fromAddress = perAddress.get(key) ?? 0;
    if (open >= maxConnections || fromAddress >= maxPerAddress) {
      refused.add(socket);
      socket.on('error', () => socket.destroy());
      socket.end(FULL_ANSWER);
      return;
    }
    open++;
    perAddress.set(key, fromAddress + 1);
    socket.once('close', () => {
      open--;
      const left = perAddress.get(key)! - 1;
      if (left === 0) perAddress.delete(key);
      else perAddress.set(key, left);
    });
  });
  return (socket) => !refused.has(socket);
}

/** Every name of {@link ListenOptions}. */
const LISTEN_OPTION_NAMES: OptionNames<ListenOptions> = {
  ...HANDLER_OPTION_NAMES,
  port: true,
  host: true,
  maxConnections: true,
  maxConnectionsPerAddress: true,
  serverOptions: true,
};

/**
 * Serves `server` over HTTP on a new node:http server (see `createHttpHandler` for the status
 * policy), with limits fit for an exposed port: headers within 10 s, a whole request within 60 s,
 * at most 10,000 connections and 1,000 per remote address (more are answered 503).
 *
 * @param server - anything with `handle(text, context)`, such as a `@jsonrpc-kit/server` Server
 * @param options - port (default 0), host (default 127.0.0.1), server options, handler options
 * @returns the listener once it is bound
 * @throws Error when the port cannot be bound (EADDRINUSE, EACCES)
 * @example
 * ```ts
 * const http = await listen(server, { port: 8545 });
 * console.log(`listening on ${http.url}`);
 * await http.close();
 * ```
 */
export function listen(server: MessageHandler, options: ListenOptions = {}): Promise<HttpListener> {
  try {
    checkOptionNames('listen', options, LISTEN_OPTION_NAMES, RENAMED_HTTP_OPTIONS);
  } catch (error) {
    return Promise.reject(error);
  }
  const {
    port: _port,
    host: _host,
    maxConnections: _maxConnections,
    maxConnectionsPerAddress: _perAddress,
    serverOptions: _serverOptions,
    ...handlerOptions
  } = options;
  const handler = createHttpHandler(server, handlerOptions);
  // node:http loads here rather than with the package: a client of this package never needs it.
  return import('node:http').then(({ createServer }) => {
    let admitted: (socket: Socket) => boolean = () => true;
    const httpServer = createServer(
      {
        headersTimeout: DEFAULT_HEADERS_TIMEOUT,
        requestTimeout: DEFAULT_REQUEST_TIMEOUT,
        connectionsCheckingInterval: TIMEOUT_CHECK_INTERVAL,
        ...options.serverOptions,
      },
      (req, res) => {
        if (admitted(req.socket)) handler(req, res);
        else res.destroy();
      },
    );
    admitted = capConnections(
      httpServer,
      options.maxConnections ?? DEFAULT_MAX_CONNECTIONS,
      options.maxConnectionsPerAddress ?? DEFAULT_MAX_CONNECTIONS_PER_ADDRESS,
    );
    const host = options.host ?? DEFAULT_HOST;
    return new Promise<HttpListener>((resolve, reject) => {
      const onError = (error: Error): void => reject(error);
      httpServer.once('error', onError);
      httpServer.listen(options.port ?? DEFAULT_PORT, host, () => {
        httpServer.off('error', onError);
        const port = (httpServer.address() as AddressInfo).port;
        const name = host.includes(':') ? `[${host}]` : host;
        let closing: Promise<void> | undefined;
        const close = (): Promise<void> => {
          closing ??= new Promise<void>((done) => {
            httpServer.close(() => done());
            httpServer.closeIdleConnections();
          });
          return closing;
        };
        resolve({
          url: `http://${name}:${port}/`,
          port,
          httpServer,
          close,
          [Symbol.asyncDispose]: close,
        });
      });
    });
  });
}
