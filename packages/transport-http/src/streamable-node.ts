/**
 * The streaming handler on node:http: `createStreamableHttpNodeHandler(server, options)`.
 *
 * @module
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { Readable } from 'node:stream';
import type { ConnectionHandler } from '@jsonrpc-kit/core';
import type { NodeHttpHandler } from './node-handler.js';
import {
  createStreamableHttpHandler,
  type StreamableHttpHandlerOptions,
} from './streamable-handler.js';

/** The node:http streaming handler, with its sessions. */
export interface StreamableNodeHttpHandler extends NodeHttpHandler {
  /** How many sessions are open. */
  readonly sessions: number;
  /**
   * Closes every session and stream.
   *
   * @returns resolves once closed
   */
  close(): Promise<void>;
}

function toRequest(req: IncomingMessage, signal: AbortSignal): Request {
  const headers = new Headers();
  for (let i = 0; i < req.rawHeaders.length; i += 2) {
    headers.append(req.rawHeaders[i]!, req.rawHeaders[i + 1]!);
  }
  const host = req.headers.host ?? '127.0.0.1';
  const method = req.method ?? 'GET';
  const hasBody = method !== 'GET' && method !== 'HEAD' && method !== 'OPTIONS';
  const init: RequestInit & { duplex?: 'half' } = { method, headers, signal };
  if (hasBody) {
    init.body = Readable.toWeb(req) as ReadableStream<Uint8Array>;
    init.duplex = 'half';
  }
  return new Request(`http://${host}${req.url ?? '/'}`, init);
}

/** Resolves when the response drains or closes; removes both listeners either way. */
function drained(res: ServerResponse): Promise<void> {
  return new Promise<void>((resolve) => {
    const done = (): void => {
      res.off('drain', done);
      res.off('close', done);
      resolve();
    };
    res.on('drain', done);
    res.on('close', done);
  });
}

async function write(response: Response, res: ServerResponse): Promise<void> {
  const headers: string[] = [];
  response.headers.forEach((value, name) => {
    headers.push(name, value);
  });
  const body = response.body;
  if (body === null) {
    res.writeHead(response.status, headers);
    res.end();
    return;
  }
  if (response.headers.get('content-type') !== 'text/event-stream') {
    // A whole answer: one write with its length.
    const text = await response.text();
    headers.push('content-length', String(Buffer.byteLength(text)));
    res.writeHead(response.status, headers);
    res.end(text);
    return;
  }
  res.writeHead(response.status, headers);
  res.flushHeaders();
  const reader = body.getReader();
  res.once('close', () => {
    reader.cancel().catch(() => {});
  });
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    // Backpressure: wait for the socket to drain; the stream's own bound applies meanwhile.
    if (!res.write(value)) await drained(res);
    if (res.destroyed) return;
  }
  res.end();
}

/**
 * Serves JSON-RPC over Streamable HTTP on node:http: the {@link createStreamableHttpHandler}
 * behaviour (sessions, event streams, resumption, DNS-rebinding protection for loopback binds),
 * as a `(req, res)` listener. A client that disconnects aborts the request's signal.
 *
 * @param server - anything with `connect(transport, context)`, such as a `@jsonrpc-kit/server` Server
 * @param options - as {@link createStreamableHttpHandler}
 * @returns the listener, with `sessions` and `close()`
 * @throws RangeError when a limit is negative
 * @example
 * ```ts
 * import { createServer as createHttpServer } from 'node:http';
 * import { createServer } from '@jsonrpc-kit/server';
 * import { createStreamableHttpNodeHandler } from '@jsonrpc-kit/transport-http/node';
 *
 * const server = createServer();
 * server.method('add', ([a, b]: [number, number]) => a + b);
 * const handler = createStreamableHttpNodeHandler(server);
 * const http = createHttpServer(handler).listen(0, '127.0.0.1');
 * http.close();
 * await handler.close();
 * ```
 */
export function createStreamableHttpNodeHandler(
  server: ConnectionHandler,
  options: StreamableHttpHandlerOptions = {},
): StreamableNodeHttpHandler {
  const fetchHandler = createStreamableHttpHandler(server, options);
  const handler = function streamableNodeHandler(req: IncomingMessage, res: ServerResponse): void {
    const controller = new AbortController();
    res.once('close', () => {
      if (!res.writableFinished) controller.abort(new Error('The HTTP client disconnected'));
    });
    const info = { remoteAddress: req.socket.remoteAddress, localAddress: req.socket.localAddress };
    fetchHandler(toRequest(req, controller.signal), info)
      .then((response) => write(response, res))
      .catch((error: unknown) => {
        options.onError?.(error);
        if (!res.headersSent) res.writeHead(500);
        res.end();
      });
  } as StreamableNodeHttpHandler;
  Object.defineProperty(handler, 'sessions', { get: () => fetchHandler.sessions });
  (handler as { close: () => Promise<void> }).close = () => fetchHandler.close();
  return handler;
}
