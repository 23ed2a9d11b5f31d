/**
 * The fetch-runtime handler: `createFetchHandler(server, options)`. Imports no `node:` module.
 *
 * @module
 */
import type { MessageHandler } from '@jsonrpc-kit/core/engine';
import { isPromiseLike } from '@jsonrpc-kit/core/engine';
import { type BodyFailure, TIMED_OUT, TOO_LARGE } from './body-failure.js';
import { readBody } from './fetch-body.js';
import { empty, json, policyResponse } from './fetch-response.js';
import type { HttpHandlerOptions } from './handler-options.js';
import { HttpContext } from './http-context.js';
import { HttpError } from './http-error.js';
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

/** What a fetch runtime knows about the exchange beyond the `Request`. */
export interface FetchRequestInfo {
  /** The peer's address (Deno: `info.remoteAddr.hostname`; Bun: `server.requestIP(req)?.address`). */
  readonly remoteAddress?: string | undefined;
}

/** A fetch-style handler: Deno, Bun, Cloudflare Workers, Hono, Next.js route handlers. */
export type FetchHandler = (request: Request, info?: FetchRequestInfo) => Promise<Response>;

function headerRecord(headers: Headers): Record<string, string> {
  const record: Record<string, string> = {};
  headers.forEach((value, name) => {
    record[name] = value;
  });
  return record;
}

/**
 * Builds the exchange's context and runs `authenticate`.
 *
 * @param cfg - the handler's options
 * @param request - the request
 * @param info - what the runtime knows beyond the request
 * @param cors - the CORS headers of the answer
 * @returns the context (with `auth`), or the refusal to send
 */
export async function admit(
  cfg: ResolvedHandlerOptions,
  request: Request,
  info: FetchRequestInfo | undefined,
  cors: readonly string[],
): Promise<HttpContext | Response> {
  const ctx = new HttpContext(
    headerRecord(request.headers),
    info?.remoteAddress,
    request.url,
    request.method,
    { signal: request.signal },
    cfg.maxMessageBytes,
  );
  if (cfg.authenticate === undefined) return ctx;
  const refuse = (error: unknown): Response => {
    const r = rejectionOf(error, cfg.onError);
    return json(r.status, r.body, [...cors, ...r.headers]);
  };
  let auth: unknown;
  try {
    auth = cfg.authenticate(ctx);
    if (isPromiseLike(auth)) auth = await auth;
  } catch (error) {
    return refuse(error);
  }
  if (auth instanceof HttpError) return refuse(auth);
  ctx.auth = auth;
  return ctx;
}

/**
 * Serves JSON-RPC over HTTP in fetch runtimes: `(Request) => Promise<Response>`. Same status
 * policy, limits, CORS and authentication as `createHttpHandler`; `ctx.transport.signal` is the
 * request's own signal (aborted when the runtime sees the client go away).
 *
 * @param server - anything with `handle(text, context)`, such as a `@jsonrpc-kit/server` Server
 * @param options - limits, status policy, CORS, authentication
 * @returns the handler; its optional second argument carries the remote address
 * @throws RangeError when `maxMessageBytes` or `bodyTimeout` is negative
 * @example
 * ```ts
 * import { createServer } from '@jsonrpc-kit/server';
 * import { createFetchHandler } from '@jsonrpc-kit/transport-http';
 *
 * const server = createServer();
 * server.method('ping', () => 'pong');
 * const handler = createFetchHandler(server);
 * // Deno.serve(handler); export default { fetch: handler }; app.post('/rpc', (c) => handler(c.req.raw));
 * ```
 */
export function createFetchHandler(
  server: MessageHandler,
  options: HttpHandlerOptions = {},
): FetchHandler {
  checkHttpOptions('createFetchHandler', options);
  const cfg = resolveHandlerOptions(options, server.maxMessageBytes);
  const allow = ['allow', cfg.allow];

  return async function jsonRpcFetchHandler(
    request: Request,
    info?: FetchRequestInfo,
  ): Promise<Response> {
    const decision = checkRequest(
      cfg,
      request.method,
      (name) => request.headers.get(name) ?? undefined,
      POST_ONLY,
      allow,
    );
    if (decision.kind === 'answer') return policyResponse(decision, request);
    const cors = decision.cors;
    const ctx = await admit(cfg, request, info, cors);
    if (ctx instanceof Response) return ctx;

    let text: string | BodyFailure;
    try {
      text = await readBody(request, cfg.maxMessageBytes, cfg.bodyTimeout);
    } catch {
      // The client went away mid-body: nobody reads this answer.
      return json(400, BAD_BODY_BODY, cors);
    }
    if (text === TOO_LARGE) return json(413, cfg.tooLargeBody, cors);
    if (text === TIMED_OUT) return json(408, BODY_TIMEOUT_BODY, cors);

    let answer: string | undefined;
    let status: number;
    try {
      answer = await server.handle(text, ctx);
      status = cfg.status(answer);
    } catch (error) {
      cfg.onError(error);
      return json(500, INTERNAL_ERROR_BODY, cors);
    }
    if (answer === undefined || !statusHasBody(status)) return empty(status, cors);
    return json(status, answer, cors);
  };
}
