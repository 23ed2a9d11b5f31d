/**
 * The streaming handler on node:http: `createStreamableHttpNodeHandler(server, options)`.
 *
 * @module
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { ConnectionHandler } from '@jsonrpc-kit/core';
import { bodyText } from './body-text.js';
import { type BodyFailure, TIMED_OUT, TOO_LARGE } from './fetch-handler.js';
import { HttpContext } from './http-context.js';
import {
  headerOf,
  type NodeHttpHandler,
  parsedBody,
  writeEarly,
  writeEmpty,
  writeJson,
} from './node-handler.js';
import type { SseStream } from './sse-stream.js';
import {
  createStreamableCore,
  SSE_HEADERS,
  type StreamableHttpHandlerOptions,
  type StreamableIncoming,
  type StreamableReply,
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

/** Calls back once if the response closes before it finished (the client went away). */
function onGone(res: ServerResponse, callback: () => void): void {
  if (res.writableFinished) return;
  if (res.destroyed) {
    callback();
    return;
  }
  res.once('close', () => {
    if (!res.writableFinished) callback();
  });
}

/**
 * Reads a request body straight from the socket, bounded by size and time: no web stream, one
 * string at the end.
 */
function readNodeBody(
  req: IncomingMessage,
  max: number,
  timeout: number,
): Promise<string | BodyFailure | undefined> {
  if (req.readableEnded) {
    // A body parser ran first (Express, Koa): take what it kept.
    const parsed = parsedBody((req as { body?: unknown }).body);
    if (parsed !== undefined && Buffer.byteLength(parsed) > max) return Promise.resolve(TOO_LARGE);
    return Promise.resolve(parsed);
  }
  return new Promise((resolve) => {
    let first: Buffer | undefined;
    let rest: Buffer[] | undefined;
    let size = 0;
    const done = (result: string | BodyFailure | undefined): void => {
      if (timer !== undefined) clearTimeout(timer);
      req.off('data', onData);
      req.off('end', onEnd);
      req.off('close', onClose);
      req.off('error', onClose);
      first = rest = undefined;
      resolve(result);
    };
    const onData = (chunk: Buffer): void => {
      size += chunk.length;
      if (size > max) done(TOO_LARGE);
      else if (first === undefined) first = chunk;
      else if (rest === undefined) rest = [chunk];
      else rest.push(chunk);
    };
    const onEnd = (): void => done(bodyText(first, rest, size));
    const onClose = (): void => done(undefined);
    const timer = timeout > 0 ? setTimeout(() => done(TIMED_OUT), timeout) : undefined;
    req.on('data', onData);
    req.on('end', onEnd);
    req.on('close', onClose);
    req.on('error', onClose);
  });
}

/** node:http's request as the streaming handler reads it: no `Request` object is made. */
function nodeIncoming(req: IncomingMessage, res: ServerResponse): StreamableIncoming {
  const headers = req.headers;
  const method = req.method ?? 'GET';
  return {
    method,
    header: (name) => headerOf(headers, name),
    localAddress: req.socket.localAddress,
    context: (maxRequestBytes) =>
      new HttpContext(
        headers,
        req.socket.remoteAddress,
        `http://${headers.host ?? '127.0.0.1'}${req.url ?? '/'}`,
        method,
        { watch: (disconnect) => onGone(res, disconnect) },
        maxRequestBytes,
      ),
    body: (max, timeout) => readNodeBody(req, max, timeout),
    onGone: (callback) => onGone(res, callback),
  };
}

/**
 * Starts an event-stream answer: the stream then writes to the response itself (no web stream,
 * no task waiting on a reader), and waits for `drain` when the socket is full.
 */
function writeStream(stream: SseStream, headers: readonly string[], res: ServerResponse): void {
  res.writeHead(200, [...headers, ...SSE_HEADERS]);
  res.flushHeaders();
  stream.attach(res);
}

/** Writes a reply with node:http's own calls. */
function write(
  r: StreamableReply,
  req: IncomingMessage,
  res: ServerResponse,
): Promise<void> | void {
  switch (r.kind) {
    case 'json':
      // A body not read to its end (timed out) leaves the connection unusable: close it.
      if (r.early === true) writeEarly(req, res, r.status, r.body, r.headers);
      else writeJson(res, r.status, r.body, r.headers, !req.complete);
      return;
    case 'empty':
      writeEmpty(res, r.status, r.headers);
      return;
    case 'sse':
      writeStream(r.stream, r.headers, res);
      return;
    case 'policy': {
      const d = r.decision;
      if (d.body === undefined) writeEmpty(res, d.status, d.headers);
      else if (d.early) writeEarly(req, res, d.status, d.body, d.headers);
      else writeJson(res, d.status, d.body, d.headers, false);
      return;
    }
  }
}

/**
 * Serves JSON-RPC over Streamable HTTP on node:http: the {@link createStreamableHttpHandler}
 * behaviour (sessions, event streams, resumption, DNS-rebinding protection for loopback binds),
 * as a `(req, res)` listener. It reads and answers node:http's request and response directly (no
 * fetch `Request` or `Response` is made), so JSON answers cost about what `createHttpHandler`'s
 * do. A client that disconnects aborts the request's signal.
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
  const core = createStreamableCore(server, options, true);
  const fail = (res: ServerResponse, error: unknown): void => {
    options.onError?.(error);
    if (!res.headersSent) res.writeHead(500);
    res.end();
  };
  const handler = function streamableNodeHandler(req: IncomingMessage, res: ServerResponse): void {
    core.handle(nodeIncoming(req, res)).then(
      (r) => {
        try {
          const writing = write(r, req, res);
          if (writing !== undefined) writing.catch((error: unknown) => fail(res, error));
        } catch (error) {
          fail(res, error);
        }
      },
      (error: unknown) => fail(res, error),
    );
  } as StreamableNodeHttpHandler;
  Object.defineProperty(handler, 'sessions', { get: () => core.sessions });
  (handler as { close: () => Promise<void> }).close = () => core.close();
  return handler;
}
