/**
 * The language server of the `lsp-stdio` example, served over WebSocket: each WebSocket
 * connection spawns its own server process on stdio (Content-Length framing) and talks to it
 * through `createProxy()`. Requests, notifications, `$/cancelRequest`, `$/progress` and the
 * server's own requests to its client (`workspace/configuration`) pass through both ways.
 *
 * @module
 */
import { createRequire } from 'node:module';
import { createClient } from '@jsonrpc-kit/client';
import { lspProfile } from '@jsonrpc-kit/core';
import { createProxy, type Server } from '@jsonrpc-kit/server';
import { spawnTransport } from '@jsonrpc-kit/transport-stdio';
import { createWebSocketServer } from '@jsonrpc-kit/transport-ws';

/** The built language server this proxy spawns, as the `lsp-stdio` example exports it. */
export const LANGUAGE_SERVER_JS: string = createRequire(import.meta.url).resolve(
  '@jsonrpc-kit/example-lsp-stdio/server',
);

/** Options of {@link startLspProxy}. */
export interface LspProxyOptions {
  /** Port to listen on; `0` picks a free one. @default 0 */
  readonly port?: number;
  /** Host to listen on. @default "127.0.0.1" */
  readonly host?: string;
  /** Told when a language server process starts or exits. */
  readonly log?: (line: string) => void;
}

/** A running proxy. */
export interface LspProxy {
  /** `ws://host:port/`. */
  readonly url: string;
  /** The proxy as a server (for `connect()` over other transports). */
  readonly proxy: Server;
  /** How many language server processes run now. */
  readonly running: () => number;
  /**
   * Closes every WebSocket (each one's language server process ends with it) and stops listening.
   *
   * @returns resolves once closed
   */
  close(): Promise<void>;
}

/**
 * Starts the WebSocket proxy in front of the `lsp-stdio` language server.
 *
 * @param options - port, host and a log
 * @returns the running proxy
 * @example
 * ```ts
 * const lsp = await startLspProxy({ port: 0 });
 * console.log(lsp.url); // ws://127.0.0.1:PORT/
 * await lsp.close();
 * ```
 */
export async function startLspProxy(options: LspProxyOptions = {}): Promise<LspProxy> {
  const host = options.host ?? '127.0.0.1';
  const log = options.log ?? (() => {});
  let running = 0;
  const proxy = createProxy(
    (handlers) => {
      const child = spawnTransport(process.execPath, [LANGUAGE_SERVER_JS], {
        framing: 'content-length',
        stderr: 'ignore',
      });
      running++;
      log(`language server started (pid ${child.process.pid})`);
      void child.exit.then((exit) => {
        running--;
        log(`language server ${child.process.pid} exited (code ${exit.code ?? exit.signal})`);
      });
      // The handlers route the server's calls to this WebSocket's client, and pass cancels on.
      return createClient(child, { ...handlers, profile: lspProfile });
    },
    { profile: lspProfile },
  );
  const wss = createWebSocketServer(proxy, { host, port: options.port ?? 0 });
  await wss.ready;
  const name = host.includes(':') ? `[${host}]` : host;
  return {
    url: `ws://${name}:${wss.port}/`,
    proxy,
    running: () => running,
    close: () => wss.close(),
  };
}
