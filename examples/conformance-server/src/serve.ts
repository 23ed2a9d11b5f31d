/**
 * Serves one server over HTTP (`POST /rpc`) and WebSocket (`/ws`) on one port, or over stdio.
 *
 * @module
 */
import { createServer as createHttpServer, type Server as HttpServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Server } from '@jsonrpc-kit/server';
import { createHttpHandler } from '@jsonrpc-kit/transport-http';
import { createStdioTransport } from '@jsonrpc-kit/transport-stdio';
import { createWebSocketServer } from '@jsonrpc-kit/transport-ws';

/** The HTTP path of JSON-RPC over HTTP. */
export const RPC_PATH = '/rpc';
/** The path of JSON-RPC over WebSocket. */
export const WS_PATH = '/ws';
/** The host the server listens on unless told otherwise. */
export const DEFAULT_HOST = '127.0.0.1';

/** Where to listen. */
export interface ServeNetworkOptions {
  /** The port; `0` picks a free one. @default 0 */
  readonly port?: number;
  /** The host. @default DEFAULT_HOST */
  readonly host?: string;
}

/** A running HTTP + WebSocket listener. */
export interface NetworkListener {
  /** The HTTP endpoint, e.g. `http://127.0.0.1:PORT/rpc`. */
  readonly httpUrl: string;
  /** The WebSocket endpoint, e.g. `ws://127.0.0.1:PORT/ws`. */
  readonly wsUrl: string;
  /** The port listened on. */
  readonly port: number;
  /** The node:http server both share. */
  readonly httpServer: HttpServer;
  /** Stops listening and closes every connection. */
  close(): Promise<void>;
}

function hostForUrl(host: string): string {
  return host.includes(':') ? `[${host}]` : host;
}

/**
 * Serves `server` over HTTP at `POST /rpc` and WebSocket at `/ws` on one port. Other paths get
 * 404.
 *
 * @param server - the JSON-RPC server
 * @param options - port and host
 * @returns the running listener
 * @example
 * ```ts
 * const listener = await serveNetwork(createConformanceServer(), { port: 0 });
 * console.log(listener.httpUrl, listener.wsUrl);
 * ```
 */
export async function serveNetwork(
  server: Server,
  options: ServeNetworkOptions = {},
): Promise<NetworkListener> {
  const host = options.host ?? DEFAULT_HOST;
  const handler = createHttpHandler(server);
  const httpServer = createHttpServer((req, res) => {
    const url = req.url ?? '/';
    const query = url.indexOf('?');
    const path = query === -1 ? url : url.slice(0, query);
    if (path === RPC_PATH) {
      handler(req, res);
      return;
    }
    res.writeHead(404, { 'content-type': 'text/plain; charset=utf-8' });
    res.end(`Not found: JSON-RPC is at POST ${RPC_PATH} and ${WS_PATH} (WebSocket)\n`);
  });
  const wss = createWebSocketServer(server, { httpServer, path: WS_PATH });
  await new Promise<void>((resolve, reject) => {
    httpServer.once('error', reject);
    httpServer.listen(options.port ?? 0, host, () => {
      httpServer.off('error', reject);
      resolve();
    });
  });
  const { port } = httpServer.address() as AddressInfo;
  const base = `${hostForUrl(host)}:${port}`;
  let closing: Promise<void> | undefined;
  return {
    httpUrl: `http://${base}${RPC_PATH}`,
    wsUrl: `ws://${base}${WS_PATH}`,
    port,
    httpServer,
    close() {
      closing ??= (async () => {
        await wss.close({ timeout: 1_000 });
        await new Promise<void>((resolve) => {
          httpServer.close(() => resolve());
          httpServer.closeAllConnections();
        });
      })();
      return closing;
    },
  };
}

/** The framings of stdio mode. */
export type StdioFraming = 'content-length' | 'newline' | 'auto';

/**
 * Serves `server` on this process's stdin/stdout until stdin ends. Nothing but framed messages is
 * written to stdout.
 *
 * @param server - the JSON-RPC server
 * @param framing - `content-length` (LSP), `newline` (MCP) or `auto`
 * @returns resolves when the connection has closed
 * @example
 * ```ts
 * await serveStdio(createConformanceServer(), 'newline');
 * ```
 */
export async function serveStdio(server: Server, framing: StdioFraming): Promise<void> {
  const connection = server.connect(createStdioTransport({ framing }), { kind: 'stdio' });
  await connection.closed;
}
