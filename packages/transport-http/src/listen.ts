/**
 * `listen(server, options)`: a node:http server for a JSON-RPC server, in one call.
 *
 * @module
 */
import { createServer, type Server, type ServerOptions } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { MessageHandler } from '@jsonrpc-kit/core';
import type { HttpHandlerOptions } from './handler-options.js';
import { createHttpHandler } from './node-handler.js';

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
  /** Options of the node:http server (timeouts, header limits, keep-alive). */
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
 * Serves `server` over HTTP on a new node:http server (see `createHttpHandler` for the status
 * policy).
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
  const handler = createHttpHandler(server, options);
  const httpServer =
    options.serverOptions === undefined
      ? createServer(handler)
      : createServer(options.serverOptions, handler);
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
}
