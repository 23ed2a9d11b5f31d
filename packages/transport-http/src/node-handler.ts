/**
 * The node:http request listener: `createHttpHandler(server, options)`.
 *
 * @module
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { MessageHandler } from '@jsonrpc-kit/core/engine';
import { isPromiseLike } from '@jsonrpc-kit/core/engine';
import { ChunkedBody } from './body-text.js';
import { Deadlines } from './deadlines.js';
import type { HttpHandlerOptions } from './handler-options.js';
import { HttpContext, type HttpContextSource } from './http-context.js';
import { HttpError } from './http-error.js';
import { headerOf, parsedBody } from './node-request.js';
import { writeEarly, writeEmpty, writeJson } from './node-write.js';
import { checkHttpOptions } from './option-names.js';
import { checkRequest, POST_ONLY } from './request-policy.js';
import {
  BAD_BODY_BODY,
  BODY_TIMEOUT_BODY,
  INTERNAL_ERROR_BODY,
  type ResolvedHandlerOptions,
  rejectionOf,
  resolveHandlerOptions,
  statusHasBody,
} from './resolve-options.js';

/** A node:http request listener (also fits Express, Fastify's raw mode and Koa's `ctx.req/res`). */
export type NodeHttpHandler = (req: IncomingMessage, res: ServerResponse) => void;

const none: readonly string[] = [];

/** Calls `disconnect` if the client goes away before the answer is written (now or later). */
function watchDisconnect(res: ServerResponse, disconnect: () => void): void {
  if (res.writableFinished) return;
  if (res.destroyed || res.socket?.destroyed === true) {
    disconnect();
    return;
  }
  res.once('close', () => {
    if (!res.writableFinished) disconnect();
  });
}

/** The body deadlines of each handler, for {@link waitingBodies}. */
const handlerDeadlines = new WeakMap<NodeHttpHandler, Deadlines>();

/**
 * How many requests a handler is waiting for the body of (each holds its request, response and the
 * chunks read so far). A test hook, not part of the package's exports.
 *
 * @param handler - a handler made by {@link createHttpHandler}
 * @returns the count; 0 for a handler without a body timeout
 */
export function waitingBodies(handler: NodeHttpHandler): number {
  return handlerDeadlines.get(handler)?.size ?? 0;
}

const READING = 0;
const DISPATCHED = 1;
const DONE = 2;

/** What every exchange of one handler shares. */
interface Served {
  readonly server: MessageHandler;
  readonly cfg: ResolvedHandlerOptions;
  /** The body deadlines, when there is a body timeout. */
  readonly deadlines: Deadlines | undefined;
}

/**
 * One POST being served: its body as it arrives, its body deadline (it is its own list entry) and
 * its answer. A class, so that what every request needs lives in one object and its methods are
 * shared; only the three body listeners are closures.
 */
class Exchange extends ChunkedBody implements HttpContextSource {
  state = READING;
  readonly ctx: HttpContext;
  readonly onData = (chunk: Buffer): void => {
    const { cfg } = this.served;
    if (!this.keep(chunk, cfg.maxMessageBytes)) this.finish(413, cfg.tooLargeBody, none);
  };
  readonly onEnd = (): void => {
    if (this.state !== READING) return;
    this.req.removeListener('close', this.onClose);
    this.dispatch(this.takeText());
  };
  /** The client went away before the body ended: nothing will be answered; free everything. */
  readonly onClose = (): void => {
    if (this.state !== READING) return;
    this.state = DONE;
    this.release();
  };

  readonly served: Served;
  readonly req: IncomingMessage;
  readonly res: ServerResponse;
  readonly cors: readonly string[];
  /** The body a body parser already read, as text. */
  readonly parsed: string | undefined;

  constructor(
    served: Served,
    req: IncomingMessage,
    res: ServerResponse,
    cors: readonly string[],
    parsed: string | undefined,
  ) {
    super();
    this.served = served;
    this.req = req;
    this.res = res;
    this.cors = cors;
    this.parsed = parsed;
    // The context watches for a disconnect only once a handler reads its signal.
    this.ctx = new HttpContext(
      req.headers,
      req.socket.remoteAddress,
      req.url ?? '/',
      'POST',
      this,
      served.cfg.maxMessageBytes,
    );
  }

  /** Starts serving: the body deadline, authentication, then the body. */
  start(): void {
    // Also while authentication runs: a client gone before its body ended is released at once.
    this.req.on('close', this.onClose);
    this.served.deadlines?.add(this);
    const authenticate = this.served.cfg.authenticate;
    if (authenticate === undefined) {
      this.startReading();
      return;
    }
    let auth: unknown;
    try {
      auth = authenticate(this.ctx);
    } catch (error) {
      this.reject(error);
      return;
    }
    if (!isPromiseLike(auth)) this.authenticated(auth);
    else
      auth.then(
        (value) => this.authenticated(value),
        (error: unknown) => this.reject(error),
      );
  }

  watch(disconnect: () => void): void {
    watchDisconnect(this.res, disconnect);
  }

  expire(): void {
    this.finish(408, BODY_TIMEOUT_BODY, none);
  }

  authenticated(auth: unknown): void {
    if (auth instanceof HttpError) {
      this.reject(auth);
      return;
    }
    this.ctx.auth = auth;
    this.startReading();
  }

  reject(error: unknown): void {
    const r = rejectionOf(error, this.served.cfg.onError);
    this.finish(r.status, r.body, r.headers);
  }

  startReading(): void {
    if (this.state !== READING) return;
    if (this.parsed !== undefined) {
      this.dispatch(this.parsed);
      return;
    }
    this.req.on('data', this.onData);
    this.req.on('end', this.onEnd);
  }

  dispatch(text: string): void {
    this.state = DISPATCHED;
    this.served.deadlines?.delete(this);
    const server = this.served.server;
    let answer: string | undefined | PromiseLike<string | undefined>;
    try {
      answer =
        server.answer === undefined ? server.handle(text, this.ctx) : server.answer(text, this.ctx);
    } catch (error) {
      this.failed(error);
      return;
    }
    if (!isPromiseLike(answer)) this.answered(answer);
    else
      answer.then(
        (text) => this.answered(text),
        (error: unknown) => this.failed(error),
      );
  }

  answered(answer: string | undefined): void {
    if (this.state === DONE) return;
    this.state = DONE;
    const { cfg } = this.served;
    let status: number;
    try {
      status = cfg.status(answer);
    } catch (error) {
      cfg.onError(error);
      writeJson(this.res, 500, INTERNAL_ERROR_BODY, this.cors, false);
      return;
    }
    if (answer === undefined || !statusHasBody(status)) writeEmpty(this.res, status, this.cors);
    else writeJson(this.res, status, answer, this.cors, false);
  }

  failed(error: unknown): void {
    this.served.cfg.onError(error);
    if (this.state === DONE) return;
    this.state = DONE;
    writeJson(this.res, 500, INTERNAL_ERROR_BODY, this.cors, false);
  }

  /** Answers before the server did: a refusal, a body too large or too late. */
  finish(status: number, body: string, extra: readonly string[]): void {
    if (this.state === DONE) return;
    const reading = this.state === READING;
    this.state = DONE;
    this.served.deadlines?.delete(this);
    const headers = extra.length === 0 ? this.cors : [...this.cors, ...extra];
    if (reading) {
      // Stop buffering; what still arrives is dropped and the connection closes after the answer.
      this.release();
      if (status !== 408) {
        writeEarly(this.req, this.res, status, body, headers);
        return;
      }
    }
    writeJson(this.res, status, body, headers, reading);
  }

  /** Lets go of the body: listeners, chunks, and the deadline that holds them. */
  release(): void {
    this.req.removeListener('data', this.onData);
    this.req.removeListener('end', this.onEnd);
    this.req.removeListener('close', this.onClose);
    this.first = this.rest = undefined;
    this.served.deadlines?.delete(this);
  }
}

/**
 * Serves JSON-RPC over HTTP on node:http (and frameworks built on it): POST bodies go to
 * `server.handle(text, ctx)`, answers come back as `application/json`.
 *
 * Status policy: 200 for every JSON-RPC answer (errors included), 204 when there is nothing to
 * answer, 405 with `Allow: POST` for other methods, 415 for a non-JSON or missing `Content-Type`
 * (see `requireJsonContentType`), 413 with a
 * -32004 body when the body exceeds `maxMessageBytes` (checked while streaming; the connection is
 * then closed), 408 when the body does not arrive within `bodyTimeout`, 401/403 from
 * `authenticate`, 500 when `server.handle` rejects. Handlers see `ctx.transport` with `kind: 'http'`,
 * headers, remote address, URL, method, `auth`, and a `signal` aborted when the client disconnects.
 *
 * @param server - anything with `handle(text, context)`, such as a `@jsonrpc-kit/server` Server
 * @param options - limits, status policy, CORS, authentication
 * @returns a `(req, res)` request listener
 * @throws RangeError when `maxMessageBytes` or `bodyTimeout` is negative
 * @example
 * ```ts
 * import { createServer as createHttpServer } from 'node:http';
 * import { createServer } from '@jsonrpc-kit/server';
 * import { createHttpHandler } from '@jsonrpc-kit/transport-http/node';
 *
 * const server = createServer();
 * server.method('add', ([a, b]: [number, number]) => a + b);
 * createHttpServer(createHttpHandler(server, { cors: true })).listen(3000);
 * ```
 */
export function createHttpHandler(
  server: MessageHandler,
  options: HttpHandlerOptions = {},
): NodeHttpHandler {
  checkHttpOptions('createHttpHandler', options);
  const cfg = resolveHandlerOptions(options, server.maxMessageBytes);
  const deadlines = cfg.bodyTimeout > 0 ? new Deadlines(cfg.bodyTimeout) : undefined;
  const served: Served = { server, cfg, deadlines };
  const allow = ['allow', cfg.allow];
  const handler = function jsonRpcHttpHandler(req: IncomingMessage, res: ServerResponse): void {
    const headers = req.headers;
    const decision = checkRequest(
      cfg,
      req.method ?? '',
      (name) => headerOf(headers, name),
      POST_ONLY,
      allow,
    );
    if (decision.kind === 'answer') {
      if (decision.body === undefined) writeEmpty(res, decision.status, decision.headers);
      else if (decision.early)
        writeEarly(req, res, decision.status, decision.body, decision.headers);
      else writeJson(res, decision.status, decision.body, decision.headers, false);
      return;
    }
    const cors = decision.cors;
    let parsed: string | undefined;
    if (req.readableEnded) {
      // A body parser ran first (Express, Koa): take what it kept.
      parsed = parsedBody((req as { body?: unknown }).body);
      if (parsed === undefined) {
        writeJson(res, 400, BAD_BODY_BODY, cors, false);
        return;
      }
      if (Buffer.byteLength(parsed) > cfg.maxMessageBytes) {
        writeJson(res, 413, cfg.tooLargeBody, cors, false);
        return;
      }
    }
    new Exchange(served, req, res, cors, parsed).start();
  };
  if (deadlines !== undefined) handlerDeadlines.set(handler, deadlines);
  return handler;
}
