/**
 * MCP 2026-07-28 over HTTP: a stateless POST per request, on the same endpoint as the 2025
 * revisions. A POST whose `MCP-Protocol-Version` header names a revision without `initialize`
 * (and that carries no `Mcp-Session-Id`) is answered here: its headers are checked against its
 * body (`Mcp-Method`, `Mcp-Name`, `Mcp-Param-*`, the version), then it runs on its own short
 * connection to the kit server, answered as JSON or, when the server sends progress or log
 * messages first, as an event stream. Everything else (2025 clients: `initialize`, sessions, GET
 * streams, DELETE) goes to the `legacy` handler, the kit's Streamable HTTP handler.
 *
 * @module
 */
import type { Transport, TransportContext, TransportHandler } from '@jsonrpc-kit/core';
import { type McpServer, stateOf } from './mcp-server.js';
import {
  HEADER_MISMATCH,
  META_CLIENT_CAPABILITIES,
  META_PROTOCOL_VERSION,
  metaOf,
  UNSUPPORTED_PROTOCOL_VERSION,
} from './stateless.js';

/** Options of {@link createMcpFetchHandler} and {@link createMcpNodeHandler}. */
export interface McpHttpOptions {
  /**
   * Checks `Host` and `Origin` of a request that arrived on a loopback address: both must name a
   * loopback host (`localhost`, `127.0.0.1`, `[::1]`), as the kit's Streamable HTTP handler does for
   * 2025 clients. `false` turns it off (the legacy handler keeps its own setting).
   *
   * @default true
   */
  readonly dnsRebindingProtection?: boolean;
  /**
   * Authenticates a stateless (2026-07-28) request, as the `legacy` handler's `authenticate` does
   * the others: give both the same hook (`createProtectedResource(...).authenticate` of
   * `@jsonrpc-kit/mcp/resource-server`), or stateless requests go through unauthenticated. What it
   * returns is the handler's `ctx.transport.auth`; an `HttpError` of `@jsonrpc-kit/transport-http`
   * it throws or returns is the answer (its status, headers and message), anything else it throws
   * a 401.
   */
  readonly authenticate?: (context: TransportContext) => unknown;
}

/** The parts of a node:http `IncomingMessage` the handler uses. */
export interface NodeRequestLike {
  /** The HTTP method. */
  readonly method?: string | undefined;
  /** The headers, names in lower case. */
  readonly headers: Readonly<Record<string, string | readonly string[] | undefined>>;
  /** Whether the body was read already (by a body parser, which left it in `body`). */
  readonly readableEnded?: boolean;
  /** The body a body parser read: text (a parsed object is sent as its JSON). */
  readonly body?: unknown;
  /** The socket (its local address decides the DNS-rebinding check). */
  readonly socket: {
    /** The address the request arrived on. */
    readonly localAddress?: string | undefined;
  };
  /** Adds a listener of the body's chunks, its end or an error. */
  on(event: 'data', listener: (chunk: Uint8Array) => void): unknown;
  /** Adds a one-time listener. */
  once(event: 'end' | 'error', listener: () => void): unknown;
}

/** The parts of a node:http `ServerResponse` the handler uses. */
export interface NodeResponseLike {
  /** Whether all of the answer was handed to the socket. */
  readonly writableFinished: boolean;
  /** Writes the head. */
  writeHead(status: number, headers?: Record<string, string>): NodeResponseLike;
  /** Writes a chunk of the body. */
  write(chunk: string): boolean;
  /** Ends the answer. */
  end(body?: string): unknown;
  /** Adds a one-time listener of the connection's close. */
  once(event: 'close', listener: () => void): unknown;
}

/** The most bytes of a stateless POST body read (larger ones are answered 413). */
export const MAX_STATELESS_BODY_BYTES: number = 4 * 1024 * 1024;

/** The parts of an HTTP request the stateless path reads. */
interface Incoming {
  readonly header: (name: string) => string | undefined;
  readonly headers: Record<string, string>;
  readonly localAddress: string | undefined;
  readonly signal: AbortSignal | undefined;
}

/** An answer: JSON (with its status) or a stream of events. */
type Answer =
  | {
      readonly kind: 'json';
      readonly status: number;
      readonly body: string;
      readonly headers?: Readonly<Record<string, string>>;
    }
  | { readonly kind: 'empty'; readonly status: number }
  | { readonly kind: 'sse'; readonly events: AsyncIterable<string> };

const LOOPBACK_HOSTS = new Set(['localhost', '127.0.0.1', '[::1]', '::1']);

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function hostName(host: string): string {
  const name = host.startsWith('[') ? host.slice(0, host.indexOf(']') + 1) : host.split(':')[0]!;
  return name.toLowerCase();
}

function isLoopback(address: string | undefined): boolean {
  if (address === undefined) return false;
  return address === '::1' || address.startsWith('127.') || address.startsWith('::ffff:127.');
}

function errorBody(id: unknown, code: number, message: string, data?: unknown): string {
  const error = data === undefined ? { code, message } : { code, message, data };
  return JSON.stringify({ jsonrpc: '2.0', id: id ?? null, error });
}

/** The HTTP status of a JSON-RPC error answer to a stateless request. */
function statusOf(code: number): number {
  if (code === -32601) return 404;
  if (code === -32700 || code === -32600 || code === -32602) return 400;
  if (code === HEADER_MISMATCH || code === -32021 || code === UNSUPPORTED_PROTOCOL_VERSION) {
    return 400;
  }
  return 200;
}

/** The body field `Mcp-Name` mirrors, for the methods that have one. */
function nameOf(method: string, params: Record<string, unknown>): unknown {
  if (method === 'tools/call' || method === 'prompts/get') return params.name;
  if (method === 'resources/read') return params.uri;
  if (method === 'tasks/get' || method === 'tasks/update' || method === 'tasks/cancel') {
    return params.taskId;
  }
  return undefined;
}

const BASE64 = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;

/** Decodes an `Mcp-Param-*` value: `=?base64?…?=` is Base64 of UTF-8, anything else literal. */
function decodeParam(value: string): string | undefined {
  const match = /^=\?base64\?(.*)\?=$/.exec(value);
  if (match === null) return value;
  const encoded = match[1]!;
  if (!BASE64.test(encoded)) return undefined;
  try {
    const binary = atob(encoded);
    return new TextDecoder('utf-8', { fatal: true }).decode(
      Uint8Array.from(binary, (c) => c.charCodeAt(0)),
    );
  } catch {
    return undefined;
  }
}

/**
 * Whether a request is for the stateless path: a POST naming a stateless revision (or one this
 * server does not know) in `MCP-Protocol-Version`, without a session.
 */
function isStateless(mcp: McpServer, method: string, header: Incoming['header']): boolean {
  if (method !== 'POST' || header('mcp-session-id') !== undefined) return false;
  const version = header('mcp-protocol-version');
  return version !== undefined && !stateOf(mcp).sessionVersions.includes(version);
}

/**
 * Checks a stateless request against its headers and `_meta`.
 *
 * @returns the error answer, or `undefined` when it may run
 */
async function refusal(
  mcp: McpServer,
  message: Record<string, unknown>,
  incoming: Incoming,
): Promise<Answer | undefined> {
  const id = message.id;
  const method = message.method as string;
  const params = isRecord(message.params) ? message.params : {};
  const refuse = (code: number, text: string, data?: unknown): Answer => ({
    kind: 'json',
    status: statusOf(code),
    body: errorBody(id, code, text, data),
  });
  const header = (name: string) => incoming.header(name)?.trim();
  const meta = metaOf(params);
  const missing = [META_PROTOCOL_VERSION, META_CLIENT_CAPABILITIES].filter(
    (key) => meta?.[key] === undefined,
  );
  if (missing.length > 0) {
    return refuse(-32602, `Invalid params: _meta is missing ${missing.join(', ')}`, { missing });
  }
  const version = meta![META_PROTOCOL_VERSION];
  if (version !== header('mcp-protocol-version')) {
    return refuse(HEADER_MISMATCH, 'MCP-Protocol-Version header does not match the body');
  }
  const state = stateOf(mcp);
  if (typeof version !== 'string' || !state.statelessVersions.includes(version)) {
    return refuse(UNSUPPORTED_PROTOCOL_VERSION, 'Unsupported protocol version', {
      supported: [...state.statelessVersions],
      requested: String(version),
    });
  }
  if (header('mcp-method') !== method) {
    return refuse(HEADER_MISMATCH, 'Mcp-Method header does not match the body');
  }
  const name = nameOf(method, params);
  if (name !== undefined && header('mcp-name') !== String(name)) {
    return refuse(HEADER_MISMATCH, 'Mcp-Name header does not match the body');
  }
  if (method === 'tools/call' && typeof params.name === 'string') {
    const headers = await state.toolHeaders(params.name);
    const args = isRecord(params.arguments) ? params.arguments : {};
    for (const [property, suffix] of headers) {
      const value = args[property];
      const given = incoming.header(`mcp-param-${suffix.toLowerCase()}`);
      if (value === undefined || value === null) continue;
      if (given === undefined) {
        return refuse(HEADER_MISMATCH, `Mcp-Param-${suffix} header is missing`);
      }
      const decoded = decodeParam(given.trim());
      if (decoded === undefined) {
        return refuse(HEADER_MISMATCH, `Mcp-Param-${suffix} header is not valid Base64`);
      }
      if (decoded !== (typeof value === 'string' ? value : JSON.stringify(value))) {
        return refuse(HEADER_MISMATCH, `Mcp-Param-${suffix} header does not match the body`);
      }
    }
  }
  return undefined;
}

/** A connection that carries one request and its answer. */
function oneShot(
  text: string,
  id: unknown,
): {
  transport: Transport;
  answer: Promise<Answer>;
} {
  let handler: TransportHandler | undefined;
  const queue: string[] = [];
  let wake: (() => void) | undefined;
  let finished = false;
  let settle!: (answer: Answer) => void;
  const answer = new Promise<Answer>((resolve) => {
    settle = resolve;
  });
  let streaming = false;
  async function* events(): AsyncGenerator<string> {
    for (;;) {
      while (queue.length > 0) yield queue.shift()!;
      if (finished) return;
      await new Promise<void>((resolve) => {
        wake = resolve;
      });
    }
  }
  const transport: Transport = {
    async start(h) {
      handler = h;
      queueMicrotask(() => handler?.onMessage(text));
    },
    async send(message) {
      if (finished) return;
      let parsed: unknown;
      try {
        parsed = JSON.parse(message);
      } catch {
        return;
      }
      const final = isRecord(parsed) && !('method' in parsed) && parsed.id === id;
      // A stateless response stream carries no request of the server's own (SEP-2575).
      if (isRecord(parsed) && 'method' in parsed && 'id' in parsed) return;
      if (final && !streaming) {
        finished = true;
        const error = (parsed as { error?: { code?: unknown } }).error;
        const code = typeof error?.code === 'number' ? error.code : undefined;
        settle({ kind: 'json', status: code === undefined ? 200 : statusOf(code), body: message });
        return;
      }
      queue.push(message);
      if (final) finished = true;
      if (!streaming) {
        streaming = true;
        settle({ kind: 'sse', events: events() });
      }
      wake?.();
      wake = undefined;
    },
    async close() {
      if (!finished) {
        finished = true;
        settle({ kind: 'empty', status: 202 });
        wake?.();
      }
    },
  };
  return { transport, answer };
}

/** Answers one stateless POST. */
/** What `HttpError` of `@jsonrpc-kit/transport-http` carries (read without importing it). */
interface HttpErrorLike {
  readonly status: number;
  readonly code?: number;
  readonly message: string;
  readonly headers?: Readonly<Record<string, string>>;
}

const HTTP_ERROR = Symbol.for('@jsonrpc-kit/transport-http/HttpError');

const isHttpError = (value: unknown): value is HttpErrorLike =>
  typeof value === 'object' &&
  value !== null &&
  (value as Record<symbol, unknown>)[HTTP_ERROR] === true;

/** Runs `authenticate`: the principal, or the refusal to answer with. */
async function admit(
  options: McpHttpOptions,
  incoming: Incoming,
): Promise<{ readonly auth: unknown } | Answer> {
  if (options.authenticate === undefined) return { auth: undefined };
  const context: TransportContext = {
    kind: 'http',
    headers: incoming.headers,
    httpMethod: 'POST',
    ...(incoming.signal === undefined ? {} : { signal: incoming.signal }),
  };
  let refusal: unknown;
  try {
    const auth = await options.authenticate(context);
    if (!isHttpError(auth)) return { auth };
    refusal = auth;
  } catch (error) {
    refusal = error;
  }
  if (!isHttpError(refusal)) {
    return { kind: 'json', status: 401, body: errorBody(null, -32000, 'Unauthorized') };
  }
  return {
    kind: 'json',
    status: refusal.status,
    body: errorBody(null, refusal.code ?? -32000, refusal.message),
    ...(refusal.headers === undefined ? {} : { headers: refusal.headers }),
  };
}

/** Authenticates, then serves. */
async function admitted(
  mcp: McpServer,
  text: string,
  incoming: Incoming,
  options: McpHttpOptions,
): Promise<Answer> {
  const admission = await admit(options, incoming);
  if ('kind' in admission) return admission;
  return serve(mcp, text, incoming, admission.auth);
}

async function serve(
  mcp: McpServer,
  text: string,
  incoming: Incoming,
  auth?: unknown,
): Promise<Answer> {
  let message: unknown;
  try {
    message = JSON.parse(text);
  } catch {
    return { kind: 'json', status: 400, body: errorBody(null, -32700, 'Parse error') };
  }
  if (!isRecord(message) || typeof message.method !== 'string') {
    return { kind: 'json', status: 400, body: errorBody(null, -32600, 'Invalid Request') };
  }
  const refused = await refusal(mcp, message, incoming);
  if (refused !== undefined) return refused;
  if (!('id' in message)) {
    // A notification (`notifications/cancelled` of a call on another connection): nothing to run.
    return { kind: 'empty', status: 202 };
  }
  const { transport, answer } = oneShot(text, message.id);
  const context: TransportContext = {
    kind: 'http',
    headers: incoming.headers,
    httpMethod: 'POST',
    ...(incoming.signal === undefined ? {} : { signal: incoming.signal }),
    ...(auth === undefined ? {} : { auth }),
  };
  const connection = mcp.server.connect(transport, context);
  incoming.signal?.addEventListener('abort', () => void connection.close(), { once: true });
  const result = await answer;
  if (result.kind !== 'sse') void connection.close();
  else {
    const events = result.events;
    return {
      kind: 'sse',
      events: (async function* () {
        try {
          for await (const event of events) yield event;
        } finally {
          void connection.close();
        }
      })(),
    };
  }
  return result;
}

function guard(incoming: Incoming, options: McpHttpOptions): Answer | undefined {
  if (options.dnsRebindingProtection === false || !isLoopback(incoming.localAddress)) return;
  const host = incoming.header('host');
  const origin = incoming.header('origin');
  let originHost: string | undefined;
  try {
    originHost = origin === undefined ? undefined : new URL(origin).hostname.toLowerCase();
  } catch {
    originHost = '';
  }
  if (
    host === undefined ||
    !LOOPBACK_HOSTS.has(hostName(host)) ||
    (originHost !== undefined && !LOOPBACK_HOSTS.has(originHost))
  ) {
    return {
      kind: 'json',
      status: 403,
      body: errorBody(null, -32000, 'Forbidden: Host not allowed'),
    };
  }
  return undefined;
}

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
