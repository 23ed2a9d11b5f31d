/**
 * `createProxy()`: a connected client re-exported as a server (Go jrpc2's `proxy`), so that a
 * stdio language server or MCP server can be served over WebSocket or HTTP. Every request and
 * notification is forwarded upstream; the downstream caller's cancellation, the upstream
 * handler's progress and the upstream server's own calls to its client pass through; error
 * answers come back unchanged.
 *
 * ```text
 * downstream client ── WebSocket ──▶ proxy (a Server) ── forward ──▶ upstream client ── stdio ──▶ child
 *   $/cancelRequest  ──────────────▶ ctx.signal ────────────────────▶ the upstream's cancel notice
 *   onProgress       ◀────────────── ctx.progress ◀────────────────── onProgress
 *   onRequest        ◀────────────── connection.request ◀──────────── onRequest (server → client)
 * ```
 *
 * @module
 */
import {
  type IncomingContext,
  type IncomingNotificationHandler,
  type IncomingRequestHandler,
  InternalError,
  isJsonRpcError,
  type JsonRpcParams,
  LocalErrorCode,
  MethodNotFoundError,
  type Peer,
  type RequestOptions,
  RequestTimeoutError,
  type Transport,
  type TransportContext,
} from '@jsonrpc-kit/core';
import { asyncDisposeSymbol, type ConnectionLike } from '@jsonrpc-kit/core/engine';
import { DEFAULT_PROXY_MAX_MESSAGE_BYTES } from './defaults.js';
import type { ServerOptions } from './options.js';
import { checkServerOptions } from './options.js';
import { createServer } from './server.js';
import type { Connection, Server } from './server-types.js';
import type { MiddlewareContext, ServerMiddleware } from './types.js';

/**
 * What a proxy forwards to: a connected client (`createClient(…)` fits), or anything with its
 * `request` and `notify`. `close` and `closed`, when present, tie its life to the downstream
 * connection's.
 */
export interface ProxyUpstream extends Peer {
  /**
   * Closes the upstream (the proxy calls it when the downstream connection it serves closes).
   *
   * @param reason - why
   * @returns resolves once closed
   */
  close?(reason?: unknown): Promise<void>;
  /** Resolves when the upstream closed (the proxy then closes the downstream connection). */
  readonly closed?: Promise<void>;
}

/**
 * The options an upstream client made per downstream connection needs: spread them into
 * `createClient`'s options so the upstream server's requests and notifications reach the
 * downstream client, and a downstream cancellation is passed upstream.
 */
export interface UpstreamHandlers {
  /** Forwards the upstream server's request to the downstream client and returns its answer. */
  readonly onRequest: IncomingRequestHandler;
  /** Forwards the upstream server's notification to the downstream client. */
  readonly onNotification: IncomingNotificationHandler;
  /** The upstream call of a cancelled downstream call sends its cancel notice. */
  readonly sendCancel: true;
}

/**
 * What {@link createProxy} forwards to: one upstream shared by every downstream connection, or a
 * function that makes one per downstream connection (for stateful servers such as language
 * servers, and so the upstream server's calls to its client reach the right downstream client).
 */
export type ProxyTarget = ProxyUpstream | ((handlers: UpstreamHandlers) => ProxyUpstream);

/** A local failure of the upstream call, as the downstream caller is answered. */
function upstreamFailure(error: unknown): never {
  if (isJsonRpcError(error)) throw error; // code, message and data pass through unchanged
  const code = (error as { code?: unknown } | null)?.code;
  if (code === LocalErrorCode.Timeout) throw new RequestTimeoutError('Upstream request timed out');
  throw new InternalError('Upstream unavailable', undefined, { cause: error });
}

/** The options of a forwarded call: the caller's signal, progress, and context when read. */
function forwardOptions(ctx: MiddlewareContext): RequestOptions {
  const progress = ctx.progress;
  const { deadline, meta } = ctx;
  return {
    signal: ctx.signal,
    ...(progress === undefined ? {} : { onProgress: (value: unknown) => void progress(value) }),
    ...(deadline === undefined ? {} : { deadline }),
    ...(meta === undefined ? {} : { meta }),
  };
}

/** The options of a call the upstream server makes, forwarded downstream. */
function backwardOptions(ctx: IncomingContext): RequestOptions {
  const progress = ctx.progress;
  return progress === undefined
    ? { signal: ctx.signal }
    : { signal: ctx.signal, onProgress: (value: unknown) => void progress(value) };
}

const refuse = (): never => {
  throw new MethodNotFoundError();
};

/**
 * Re-exports a connected client as a server: serve the result with any transport adapter
 * (`createWebSocketServer(proxy, …)`, `createHttpHandler(proxy)`, `proxy.connect(transport)`).
 *
 * - Every request and notification (whatever its method, `rpc.*` included) is forwarded with
 *   its params as received; the result or the error answer (code, message, data) comes back
 *   unchanged. An upstream that cannot answer (closed, failed) gives -32603 "Upstream
 *   unavailable"; its own timeout, -32005.
 * - A downstream cancellation aborts the upstream call, which sends its cancel notice when the
 *   upstream client has `sendCancel` (the handlers given to a target function set it).
 * - Progress the upstream handler reports reaches the downstream caller (when it asked for it).
 * - With a target function, each downstream connection gets its own upstream, made with
 *   {@link UpstreamHandlers}: the upstream server's requests and notifications to its client go
 *   to that downstream client (with cancellation and progress), and the two close together. A
 *   shared upstream answers the upstream server's calls as its own `onRequest` says.
 * - With `options.callContext`, the caller's deadline and metadata go upstream as call options.
 * - Params and results are read and written again on the way: give the proxy and its upstream
 *   client `codec: losslessNumbers` (from core) and big integers keep every digit both ways.
 * - Its `maxMessageBytes` defaults to {@link DEFAULT_PROXY_MAX_MESSAGE_BYTES} (16 MiB), what the
 *   kit's client transports carry upstream, not a server's 1 MiB: the transport adapter serving
 *   the proxy adopts it (a WebSocket server's `maxMessageBytes`, an HTTP handler's body limit), so a
 *   proxy in front of a stdio language server takes the 2 MiB `didOpen` the server takes.
 *
 * Middleware added with `proxy.use()` runs before the forwarding (auth, logging, rate limits);
 * methods registered on the proxy are never reached: every call is forwarded.
 *
 * @param target - the upstream client, or a function making one per downstream connection
 * @param options - the front server's options (limits, profile, `callContext`, `onError`);
 *   `maxMessageBytes` defaults to {@link DEFAULT_PROXY_MAX_MESSAGE_BYTES}
 * @returns a server that forwards everything
 * @throws RangeError for invalid limits, TypeError for unknown option names, as `createServer`
 * @example
 * ```ts
 * const proxy = createProxy((handlers) =>
 *   createClient(spawnTransport('node', ['server.js'], { framing: 'content-length' }), {
 *     ...handlers,
 *     profile: lspProfile,
 *   }),
 *   { profile: lspProfile },
 * );
 * const wss = createWebSocketServer(proxy, { port: 0, host: '127.0.0.1' });
 * ```
 */
export function createProxy(target: ProxyTarget, options: ServerOptions = {}): Server {
  checkServerOptions(options, 'createProxy');
  const server = createServer({
    ...options,
    maxMessageBytes: options.maxMessageBytes ?? DEFAULT_PROXY_MAX_MESSAGE_BYTES,
  });
  const shared = typeof target === 'function' ? undefined : target;
  const make = typeof target === 'function' ? target : undefined;
  /** The upstream of each downstream connection, by the connection (a call's `ctx.peer`). */
  const upstreams = new WeakMap<object, ProxyUpstream>();
  /** The upstream of the connection being made: its transport may deliver while it is made. */
  let connecting: ProxyUpstream | undefined;
  /** With a target function: the upstream of stateless exchanges (`handle()`), made on first use. */
  let stateless: ProxyUpstream | undefined;

  const upstreamOf = (ctx: MiddlewareContext): ProxyUpstream =>
    shared ??
    (ctx.peer === undefined ? undefined : upstreams.get(ctx.peer)) ??
    connecting ??
    (stateless ??= make!({ onRequest: refuse, onNotification: () => {}, sendCancel: true }));

  const forward: ServerMiddleware = (ctx) => {
    const upstream = upstreamOf(ctx);
    const params = ctx.params as JsonRpcParams | undefined;
    if (ctx.notification) return upstream.notify(ctx.method, params);
    return upstream
      .request(ctx.method, params, forwardOptions(ctx))
      .then(undefined, upstreamFailure);
  };
  let removeForward = server.use(forward);

  const connect = (transport: Transport, context?: TransportContext): Connection => {
    if (make === undefined) return server.connect(transport, context);
    let downstream: ConnectionLike | undefined;
    const upstream = make({
      onRequest: (request, ctx) =>
        downstream === undefined
          ? refuse()
          : downstream.request(request.method, request.params, backwardOptions(ctx)),
      onNotification: (notification) =>
        downstream?.notify(notification.method, notification.params),
      sendCancel: true,
    });
    let connection: Connection;
    connecting = upstream;
    try {
      connection = server.connect(transport, context);
    } finally {
      connecting = undefined;
    }
    upstreams.set(connection, upstream);
    downstream = connection;
    const closeBoth = (): void => {
      void connection.close();
      void upstream.close?.();
    };
    connection.closed.then(closeBoth, closeBoth);
    upstream.closed?.then(closeBoth, closeBoth);
    return connection;
  };

  const proxy: Server = {
    ...server,
    connect,
    use(middleware: ServerMiddleware): () => void {
      // The forwarding stays last: it answers every call.
      removeForward();
      const remove = server.use(middleware);
      removeForward = server.use(forward);
      return remove;
    },
    // A shared upstream stays open (it is the caller's); one the proxy made closes with it.
    close: async (): Promise<void> => {
      await server.close();
      await stateless?.close?.();
    },
    [asyncDisposeSymbol]: () => proxy.close(),
  };
  return proxy;
}
