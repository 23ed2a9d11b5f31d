/**
 * Streamable HTTP (MCP's dialect by default): one endpoint where POST carries messages and may be
 * answered with an event stream, GET opens a stream for messages not tied to a request, and DELETE
 * ends a session. Each session is a duplex {@link Transport} served by `server.connect()`.
 * Imports no `node:` module.
 *
 * @module
 */
import type { ConnectionHandler } from '@jsonrpc-kit/core/engine';
import { readBody } from './fetch-body.js';
import type { FetchRequestInfo } from './fetch-handler.js';
import { empty, headersOf, json, policyResponse } from './fetch-response.js';
import { HttpContext } from './http-context.js';
import { createStreamableCore } from './streamable-core.js';
import type { StreamableHttpHandlerOptions } from './streamable-options.js';
import { SSE_HEADERS, type StreamableIncoming, type StreamableReply } from './streamable-reply.js';

export type {
  StreamableHttpHandlerOptions,
  StreamableSessionOptions,
} from './streamable-options.js';
export {
  DEFAULT_KEEP_ALIVE_INTERVAL,
  DEFAULT_MAX_BUFFERED_BYTES,
  DEFAULT_MAX_BUFFERED_EVENTS,
  DEFAULT_MAX_SESSIONS,
  DEFAULT_MAX_SESSIONS_PER_CLIENT,
  DEFAULT_PUSH_METHODS,
  DEFAULT_SESSION_IDLE_TIMEOUT,
  MCP_PROTOCOL_VERSIONS,
  SESSIONS_FULL_RETRY_AFTER,
} from './streamable-options.js';

/** The fetch-style streaming handler, with its sessions. */
export interface StreamableHttpHandler {
  /**
   * Answers one request.
   *
   * @param request - the request
   * @param info - the remote and local addresses, when the runtime knows them
   * @returns the response (its body may be a stream)
   */
  (request: Request, info?: StreamableRequestInfo): Promise<Response>;
  /** How many sessions are open. */
  readonly sessions: number;
  /**
   * Closes every session and stream.
   *
   * @returns resolves once closed
   */
  close(): Promise<void>;
}

/** What a runtime knows about the exchange beyond the `Request`. */
export interface StreamableRequestInfo extends FetchRequestInfo {
  /** The local address the request arrived on (DNS-rebinding protection applies to loopback). */
  readonly localAddress?: string | undefined;
}

/**
 * Builds the fetch `Response` of a reply.
 *
 * @param r - the reply
 * @param request - the request (a 413 drops the rest of its body)
 * @returns the response
 */
function toResponse(r: StreamableReply, request: Request): Response {
  switch (r.kind) {
    case 'json':
      return json(r.status, r.body, r.headers);
    case 'empty':
      return empty(r.status, r.headers);
    case 'sse':
      return new Response(r.stream.body, {
        status: 200,
        headers: headersOf([...r.headers, ...SSE_HEADERS]),
      });
    case 'policy':
      return policyResponse(r.decision, request);
  }
}

/** A fetch `Request` as the handler reads it. */
function fetchIncoming(
  request: Request,
  info: StreamableRequestInfo | undefined,
): StreamableIncoming {
  const h = request.headers;
  return {
    method: request.method,
    header: (name) => h.get(name) ?? undefined,
    localAddress: info?.localAddress,
    context(maxMessageBytes) {
      const headers: Record<string, string> = {};
      h.forEach((value, name) => {
        headers[name] = value;
      });
      return new HttpContext(
        headers,
        info?.remoteAddress,
        request.url,
        request.method,
        { signal: request.signal },
        maxMessageBytes,
      );
    },
    body: (max, timeout) => readBody(request, max, timeout).catch(() => undefined),
    onGone(callback) {
      request.signal.addEventListener('abort', callback, { once: true });
    },
  };
}

/**
 * Serves JSON-RPC over Streamable HTTP in fetch runtimes (and on node:http through
 * `createStreamableHttpNodeHandler`). Speaks MCP's Streamable HTTP dialect by default, so the
 * official MCP SDK clients work against it, yet carries any JSON-RPC:
 *
 * - POST with only notifications or responses: 202, no body. POST with requests: their answers as
 *   `application/json`, or as `text/event-stream` (progress, notifications and server→client
 *   requests tied to them, then the answers, then the end) — see `responseMode`.
 * - GET (`Accept: text/event-stream`) opens the session's stream for messages not tied to a
 *   request; 405 without sessions, 409 when one is already open; `Last-Event-ID` replays a stream.
 * - DELETE ends the session (200).
 * - Sessions: the id is sent in `Mcp-Session-Id` with the answer to the starting request, then
 *   required (400 without, 404 when unknown or expired).
 * - 403 for a refused `Host` or `Origin` (DNS-rebinding protection for loopback binds), 400 for an
 *   unsupported `MCP-Protocol-Version`, and the limits, CORS, authentication and status codes of
 *   `createFetchHandler`.
 *
 * Each session is one `server.connect(transport, context)`, so `ctx.peer`, cancellation and
 * progress work as over WebSocket. The client going away ends its stream: on a stateless endpoint
 * its connection is closed (aborting its handlers); in a session its calls keep running, and their
 * answers wait in the event store for a `Last-Event-ID` resumption.
 *
 * @param server - anything with `connect(transport, context)`, such as a `@jsonrpc-kit/server` Server
 * @param options - sessions, event store, response mode, limits, CORS, authentication
 * @returns the handler, with `sessions` and `close()`
 * @throws RangeError when a limit is negative
 * @example
 * ```ts
 * import { createServer } from '@jsonrpc-kit/server';
 * import { createStreamableHttpHandler } from '@jsonrpc-kit/transport-http';
 *
 * const server = createServer();
 * server.method('ping', () => 'pong');
 * const handler = createStreamableHttpHandler(server);
 * // Deno.serve(handler); export default { fetch: handler };
 * await handler.close();
 * ```
 */
export function createStreamableHttpHandler(
  server: ConnectionHandler,
  options: StreamableHttpHandlerOptions = {},
): StreamableHttpHandler {
  const core = createStreamableCore(server, options);
  const handler = async function streamableHttpHandler(
    request: Request,
    info?: StreamableRequestInfo,
  ): Promise<Response> {
    return toResponse(await core.handle(fetchIncoming(request, info)), request);
  } as StreamableHttpHandler;
  Object.defineProperty(handler, 'sessions', { get: () => core.sessions });
  (handler as { close: () => Promise<void> }).close = () => core.close();
  return handler;
}
