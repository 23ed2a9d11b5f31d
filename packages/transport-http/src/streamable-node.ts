/**
 * The streaming handler on node:http: `createStreamableHttpNodeHandler(server, options)`.
 *
 * @module
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { ConnectionHandler } from '@jsonrpc-kit/core/engine';
import { type BodyFailure, TIMED_OUT, TOO_LARGE } from './body-failure.js';
import { ChunkedBody } from './body-text.js';
import { Deadlines } from './deadlines.js';
import { HttpContext, type HttpContextSource } from './http-context.js';
import type { NodeHttpHandler } from './node-handler.js';
import { headerOf, parsedBody } from './node-request.js';
import { writeEarly, writeEmpty, writeJson } from './node-write.js';
import type { SseStream } from './sse-stream.js';
import { createStreamableCore } from './streamable-core.js';
import type { StreamableHttpHandlerOptions } from './streamable-options.js';
import { SSE_HEADERS, type StreamableIncoming, type StreamableReply } from './streamable-reply.js';

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
 * One request body read straight from the socket, bounded by size and time: no web stream, one
 * string at the end. Its deadline is an entry of the handler's shared list (arming and clearing a
 * timer for every POST costs more than linking an entry); only the three listeners are closures.
 */
class NodeBodyRead extends ChunkedBody {
  readonly req: IncomingMessage;
  readonly max: number;
  readonly deadlines: Deadlines | undefined;
  readonly resolve: (result: string | BodyFailure | undefined) => void;
  readonly onData = (chunk: Buffer): void => {
    if (!this.keep(chunk, this.max)) this.done(TOO_LARGE);
  };
  readonly onEnd = (): void => this.done(this.takeText());
  readonly onClose = (): void => this.done(undefined);

  constructor(
    req: IncomingMessage,
    max: number,
    deadlines: Deadlines | undefined,
    resolve: (result: string | BodyFailure | undefined) => void,
  ) {
    super();
    this.req = req;
    this.max = max;
    this.deadlines = deadlines;
    this.resolve = resolve;
    deadlines?.add(this);
    req.on('data', this.onData);
    req.on('end', this.onEnd);
    req.on('close', this.onClose);
    req.on('error', this.onClose);
  }

  expire(): void {
    this.done(TIMED_OUT);
  }

  done(result: string | BodyFailure | undefined): void {
    this.deadlines?.delete(this);
    const req = this.req;
    req.off('data', this.onData);
    req.off('end', this.onEnd);
    req.off('close', this.onClose);
    req.off('error', this.onClose);
    this.first = this.rest = undefined;
    this.resolve(result);
  }
}

/**
 * Reads a request body, bounded by size and (through `deadlines`, whose timeout is the handler's
 * body timeout) by time.
 */
function readNodeBody(
  req: IncomingMessage,
  max: number,
  deadlines: Deadlines | undefined,
): Promise<string | BodyFailure | undefined> {
  if (req.readableEnded) {
    // A body parser ran first (Express, Koa): take what it kept.
    const parsed = parsedBody((req as { body?: unknown }).body);
    if (parsed !== undefined && Buffer.byteLength(parsed) > max) return Promise.resolve(TOO_LARGE);
    return Promise.resolve(parsed);
  }
  return new Promise((resolve) => {
    new NodeBodyRead(req, max, deadlines, resolve);
  });
}

/**
 * node:http's request as the streaming handler reads it: no `Request` object is made, and its
 * methods are shared (only `header`, handed around on its own, is a closure).
 */
class NodeIncoming implements StreamableIncoming, HttpContextSource {
  readonly method: string;
  readonly header: (name: string) => string | undefined;
  readonly localAddress: string | undefined;
  readonly req: IncomingMessage;
  readonly res: ServerResponse;
  /** The handler's body deadlines (their timeout is the core's `bodyTimeout`). */
  readonly deadlines: Deadlines | undefined;

  constructor(req: IncomingMessage, res: ServerResponse, deadlines: Deadlines | undefined) {
    const headers = req.headers;
    this.method = req.method ?? 'GET';
    this.header = (name) => headerOf(headers, name);
    this.localAddress = req.socket.localAddress;
    this.req = req;
    this.res = res;
    this.deadlines = deadlines;
  }

  context(maxMessageBytes: number): HttpContext {
    const req = this.req;
    const headers = req.headers;
    return new HttpContext(
      headers,
      req.socket.remoteAddress,
      `http://${headers.host ?? '127.0.0.1'}${req.url ?? '/'}`,
      this.method,
      this,
      maxMessageBytes,
    );
  }

  watch(disconnect: () => void): void {
    onGone(this.res, disconnect);
  }

  body(max: number): Promise<string | BodyFailure | undefined> {
    return readNodeBody(this.req, max, this.deadlines);
  }

  onGone(callback: () => void): void {
    onGone(this.res, callback);
  }
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
  const deadlines = core.bodyTimeout > 0 ? new Deadlines(core.bodyTimeout) : undefined;
  const fail = (res: ServerResponse, error: unknown): void => {
    options.onError?.(error);
    if (!res.headersSent) res.writeHead(500);
    res.end();
  };
  const handler = function streamableNodeHandler(req: IncomingMessage, res: ServerResponse): void {
    core.handle(new NodeIncoming(req, res, deadlines)).then(
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
