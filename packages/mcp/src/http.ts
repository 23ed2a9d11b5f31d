/**
 * MCP 2026-07-28 over HTTP: a stateless POST per request, on the same endpoint as the 2025
 * revisions. A POST whose `MCP-Protocol-Version` header names a revision without `initialize`
 * (and that carries no `Mcp-Session-Id`) is answered here: its headers are checked against its
 * body (`Mcp-Method`, `Mcp-Name`, `Mcp-Param-*`, the version), then it runs on its own short
 * connection to the kit server, answered as JSON or, when the server sends progress or log
 * messages first, as an event stream. Everything else (2025 clients: `initialize`, sessions, GET
 * streams, DELETE) goes to the `legacy` handler, the kit's Streamable HTTP handler. Here are the
 * node and fetch adapters; the checks are in `http-checks.ts`, the stateless path in
 * `http-stateless.ts`, the shapes in `http-api.ts`.
 *
 * @module
 */
import {
  type Answer,
  type Incoming,
  MAX_STATELESS_BODY_BYTES,
  type McpHttpOptions,
  type NodeRequestLike,
  type NodeResponseLike,
} from './http-api.js';
import { errorBody, guard, isStateless } from './http-checks.js';
import { admitted } from './http-stateless.js';
import type { McpServer } from './mcp-server.js';

export {
  MAX_STATELESS_BODY_BYTES,
  type McpHttpOptions,
  type NodeRequestLike,
  type NodeResponseLike,
} from './http-api.js';

function encode(message: string): string {
  return `event: message\ndata: ${message}\n\n`;
}

/**
 * The MCP endpoint of a fetch-style runtime (Deno, Bun, Workers, Hono): 2026-07-28 requests are
 * answered statelessly here, everything else by `legacy` (the kit's `createStreamableHttpHandler`
 * of `mcp.server`), so 2025 and 2026 clients share one URL.
 *
 * @param mcp - the MCP server
 * @param legacy - answers the 2025 revisions (sessions)
 * @param options - DNS-rebinding protection, the stateless requests' `authenticate`
 * @returns the handler
 */
export function createMcpFetchHandler(
  mcp: McpServer,
  legacy: (request: Request) => Response | Promise<Response>,
  options: McpHttpOptions = {},
): (request: Request) => Promise<Response> {
  return async (request) => {
    const header = (name: string) => request.headers.get(name) ?? undefined;
    if (!isStateless(mcp, request.method, header)) return legacy(request);
    const incoming: Incoming = {
      header,
      headers: Object.fromEntries(request.headers),
      localAddress: undefined,
      signal: request.signal,
    };
    const answer =
      guard(incoming, options) ?? (await admitted(mcp, await request.text(), incoming, options));
    if (answer.kind === 'empty') return new Response(null, { status: answer.status });
    if (answer.kind === 'json') {
      return new Response(answer.body, {
        status: answer.status,
        headers: { 'content-type': 'application/json', ...answer.headers },
      });
    }
    const bytes = new TextEncoder();
    const iterator = answer.events[Symbol.asyncIterator]();
    return new Response(
      new ReadableStream<Uint8Array>({
        async pull(controller) {
          const next = await iterator.next();
          if (next.done) controller.close();
          else controller.enqueue(bytes.encode(encode(next.value)));
        },
        cancel() {
          void iterator.return?.();
        },
      }),
      {
        status: 200,
        headers: { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' },
      },
    );
  };
}

/**
 * The MCP endpoint on node:http: 2026-07-28 requests are answered statelessly here, everything
 * else by `legacy` (the kit's `createStreamableHttpNodeHandler(mcp.server)`), so 2025 and 2026
 * clients share one URL.
 *
 * @param mcp - the MCP server
 * @param legacy - answers the 2025 revisions (sessions)
 * @param options - DNS-rebinding protection, the stateless requests' `authenticate`
 * @returns the `(req, res)` handler
 * @example
 * ```ts
 * const legacy = createStreamableHttpNodeHandler(mcp.server, { pushMethods: MCP_PUSH_METHODS });
 * createServer(createMcpNodeHandler(mcp, legacy)).listen(3000, '127.0.0.1');
 * ```
 */
export function createMcpNodeHandler(
  mcp: McpServer,
  legacy: (req: any, res: any) => void,
  options: McpHttpOptions = {},
): (req: NodeRequestLike, res: NodeResponseLike) => void {
  return (req, res) => {
    const header = (name: string): string | undefined => {
      const value = req.headers[name];
      return typeof value === 'string' ? value : value?.join(', ');
    };
    if (!isStateless(mcp, req.method ?? 'GET', header)) {
      legacy(req, res);
      return;
    }
    const aborter = new AbortController();
    res.once('close', () => {
      if (!res.writableFinished) aborter.abort();
    });
    const headers: Record<string, string> = {};
    for (const [name, value] of Object.entries(req.headers)) {
      if (value !== undefined) headers[name] = typeof value === 'string' ? value : value.join(', ');
    }
    const incoming: Incoming = {
      header,
      headers,
      localAddress: req.socket.localAddress,
      signal: aborter.signal,
    };
    const refused = guard(incoming, options);
    const answerWith = async (text: string, size: number): Promise<void> => {
      const tooLarge: Answer | undefined =
        size > MAX_STATELESS_BODY_BYTES
          ? { kind: 'json', status: 413, body: errorBody(null, -32600, 'Request too large') }
          : undefined;
      const answer = refused ?? tooLarge ?? (await admitted(mcp, text, incoming, options));
      if (answer.kind === 'empty') {
        res.writeHead(answer.status).end();
      } else if (answer.kind === 'json') {
        res
          .writeHead(answer.status, { 'content-type': 'application/json', ...answer.headers })
          .end(answer.body);
      } else {
        res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
        for await (const event of answer.events) res.write(encode(event));
        res.end();
      }
    };
    if (req.readableEnded === true) {
      // A body parser ran first (Express, Koa, `fetchHandler`'s node twin): take what it kept.
      const body = req.body;
      const text =
        typeof body === 'string'
          ? body
          : body instanceof Uint8Array
            ? new TextDecoder().decode(body)
            : JSON.stringify(body ?? null);
      void answerWith(text, new TextEncoder().encode(text).byteLength);
      return;
    }
    const decoder = new TextDecoder();
    let text = '';
    let size = 0;
    req.on('data', (chunk: Uint8Array) => {
      size += chunk.byteLength;
      if (size <= MAX_STATELESS_BODY_BYTES) text += decoder.decode(chunk, { stream: true });
    });
    req.once('error', () => aborter.abort());
    req.once('end', () => {
      text += decoder.decode();
      void answerWith(text, size);
    });
  };
}
