/**
 * The fetch-runtime handler: `createFetchHandler(server, options)`. Imports no `node:` module.
 *
 * @module
 */
import type { MessageHandler } from '@jsonrpc-kit/core/engine';
import { isPromiseLike } from '@jsonrpc-kit/core/engine';
import { DISCARD_BYTES, DISCARD_TIMEOUT } from './constants.js';
import type { HttpHandlerOptions } from './handler-options.js';
import { HttpContext } from './http-context.js';
import { HttpError } from './http-error.js';
import { checkRequest, POST_ONLY, type PolicyDecision } from './request-policy.js';
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

const decoder = new TextDecoder();

/** A `Headers` from a flat name/value list. */
export function headersOf(list: readonly string[]): Headers {
  const headers = new Headers();
  for (let i = 0; i < list.length; i += 2) headers.append(list[i]!, list[i + 1]!);
  return headers;
}

/** A JSON answer. */
export function json(status: number, body: string, extra: readonly string[]): Response {
  const headers = headersOf(extra);
  headers.set('content-type', 'application/json');
  return new Response(body, { status, headers });
}

/** An answer without a body. */
export function empty(status: number, extra: readonly string[]): Response {
  return new Response(null, { status, headers: headersOf(extra) });
}

function headerRecord(headers: Headers): Record<string, string> {
  const record: Record<string, string> = {};
  headers.forEach((value, name) => {
    record[name] = value;
  });
  return record;
}

/**
 * What the request policy answered, as a `Response` (an over-length body is drained in the
 * background, so the client can read the answer).
 *
 * @param decision - the policy's answer
 * @param request - the request
 * @returns the response
 */
export function policyResponse(
  decision: Extract<PolicyDecision, { kind: 'answer' }>,
  request: Request,
): Response {
  if (decision.status === 413 && request.body !== null && !request.bodyUsed) {
    discard(request.body.getReader());
  }
  return decision.body === undefined
    ? empty(decision.status, decision.headers)
    : json(decision.status, decision.body, decision.headers);
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
    cfg.maxRequestBytes,
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

/** `readBody`: the body was over the limit. */
export const TOO_LARGE = 1;
/** `readBody`: the body did not arrive in time. */
export const TIMED_OUT = 2;
/** Why `readBody` read no text. */
export type BodyFailure = typeof TOO_LARGE | typeof TIMED_OUT;

/**
 * Reads and drops what is left of a body in the background, for a bounded time and byte count,
 * then cancels it: where the runtime lets the answer go out while the body is still arriving, the
 * client can read it instead of having its writes refused.
 */
function discard(reader: ReadableStreamDefaultReader<Uint8Array>): void {
  let dropped = 0;
  const stop = (): void => {
    clearTimeout(timer);
    reader.cancel().catch(() => {});
  };
  const timer = setTimeout(stop, DISCARD_TIMEOUT);
  (timer as { unref?: () => void }).unref?.();
  const next = (): void => {
    reader.read().then(
      ({ done, value }) => {
        if (done) {
          clearTimeout(timer);
          return;
        }
        dropped += value.byteLength;
        if (dropped > DISCARD_BYTES) stop();
        else next();
      },
      () => clearTimeout(timer),
    );
  };
  next();
}

/** Reads the body as UTF-8 text, never holding more than `max` bytes. */
export async function readBody(
  request: Request,
  max: number,
  timeout: number,
): Promise<string | BodyFailure> {
  const stream = request.body;
  if (stream === null) return '';
  const reader = stream.getReader();
  let timedOut = false;
  const timer =
    timeout > 0
      ? setTimeout(() => {
          timedOut = true;
          reader.cancel().catch(() => {});
        }, timeout)
      : undefined;
  const chunks: Uint8Array[] = [];
  let size = 0;
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (timedOut) return TIMED_OUT;
      if (done) break;
      size += value.byteLength;
      if (size > max) {
        discard(reader);
        return TOO_LARGE;
      }
      chunks.push(value);
    }
  } catch (error) {
    if (timedOut) return TIMED_OUT;
    throw error;
  } finally {
    if (timer !== undefined) clearTimeout(timer);
  }
  if (chunks.length === 1) return decoder.decode(chunks[0]);
  const all = new Uint8Array(size);
  let offset = 0;
  for (const chunk of chunks) {
    all.set(chunk, offset);
    offset += chunk.byteLength;
  }
  return decoder.decode(all);
}

/**
 * Serves JSON-RPC over HTTP in fetch runtimes: `(Request) => Promise<Response>`. Same status
 * policy, limits, CORS and authentication as `createHttpHandler`; `ctx.transport.signal` is the
 * request's own signal (aborted when the runtime sees the client go away).
 *
 * @param server - anything with `handle(text, context)`, such as a `@jsonrpc-kit/server` Server
 * @param options - limits, status policy, CORS, authentication
 * @returns the handler; its optional second argument carries the remote address
 * @throws RangeError when `maxRequestBytes` or `bodyTimeout` is negative
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
  const cfg = resolveHandlerOptions(options, server.maxRequestBytes);
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
      text = await readBody(request, cfg.maxRequestBytes, cfg.bodyTimeout);
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
