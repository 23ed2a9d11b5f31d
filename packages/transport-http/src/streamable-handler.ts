/**
 * Streamable HTTP (MCP's dialect by default): one endpoint where POST carries messages and may be
 * answered with an event stream, GET opens a stream for messages not tied to a request, and DELETE
 * ends a session. Each session is a duplex {@link Transport} served by `server.connect()`.
 * Imports no `node:` module.
 *
 * @module
 */
import {
  type ConnectionHandler,
  FifoQueue,
  isPromiseLike,
  type Profile,
  parse,
  scanEnvelope,
  scanHead,
  type TransportContext,
  TransportError,
} from '@jsonrpc-kit/core';
import { batchMembers } from './batch-members.js';
import { TIMED_OUT, TOO_LARGE } from './body-failure.js';
import { createMemoryEventStore } from './event-store.js';
import { readBody } from './fetch-body.js';
import type { FetchRequestInfo } from './fetch-handler.js';
import { empty, headersOf, json, policyResponse } from './fetch-response.js';
import type { HttpHandlerOptions } from './handler-options.js';
import { HttpContext } from './http-context.js';
import { HttpError } from './http-error.js';
import {
  CLOSED_HANDLER,
  clock,
  type HttpSession,
  type SessionOwner,
  sessionClass,
} from './http-session.js';
import { checkRequest, resolveOriginGuard } from './request-policy.js';
import { BODY_TIMEOUT_BODY, rejectionOf, resolveHandlerOptions } from './resolve-options.js';
import type { Exchange } from './session-activity.js';
import { keepSessionFacts } from './session-facts.js';
import { ownsStream, randomId, streamIdOf } from './session-ids.js';
import { defaultPrincipalOf, keepOrigins, recordOf, type SessionOrigin } from './session-origin.js';
import type { SessionRecord, SessionStore } from './session-store.js';
import { createSessionTable } from './session-table.js';
import { encodeSseEvent } from './sse.js';
import { createKeepAlive, openSseStream, type SseStream } from './sse-stream.js';
import {
  answeredIds,
  type Classified,
  classify,
  progressToken,
  tokenOf,
} from './streamable-classify.js';
import {
  DEFAULT_KEEP_ALIVE_INTERVAL,
  DEFAULT_MAX_BUFFERED_BYTES,
  DEFAULT_MAX_BUFFERED_EVENTS,
  DEFAULT_MAX_SESSIONS,
  DEFAULT_MAX_SESSIONS_PER_CLIENT,
  DEFAULT_PUSH_METHODS,
  DEFAULT_SESSION_IDLE_TIMEOUT,
  MCP_PROTOCOL_VERSIONS,
  SESSIONS_FULL_RETRY_AFTER,
  type StreamableHttpHandlerOptions,
  type StreamableSessionOptions,
} from './streamable-options.js';
import {
  errorBody,
  isReply,
  reply,
  SSE_HEADERS,
  type StreamableIncoming,
  type StreamableReply,
  sse,
} from './streamable-reply.js';

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

const METHODS: ReadonlySet<string> = new Set(['POST', 'GET', 'DELETE']);
const STATELESS_METHODS: ReadonlySet<string> = new Set(['POST']);

/** Where a request's id goes in a cancel notice built from the protocol's params. */
const ID_MARK = '\u0000id\u0000';
/** {@link ID_MARK} as JSON writes it. */
const ID_MARK_JSON = JSON.stringify(ID_MARK);

/** Milliseconds an exchange still waits for the answer to a cancelled request. */
const CANCEL_GRACE = 100;

/**
 * Why a request to the client failed: no stream was there to carry it (answers are JSON, or the
 * client did not take an event stream, and it has no GET stream open).
 */
const NO_STREAM =
  'No event stream to send this request to the client on: it takes no answer stream and has no GET stream open';

export type { StreamableIncoming, StreamableReply } from './streamable-reply.js';
export { SSE_HEADERS } from './streamable-reply.js';

/** The handler's core, shared by the fetch and the node:http entries. Internal. */
export interface StreamableCore {
  /** Answers one request. */
  handle(incoming: StreamableIncoming): Promise<StreamableReply>;
  /** How many sessions are open. */
  readonly sessions: number;
  /** The body timeout it reads bodies with (ms, `0` for none). */
  readonly bodyTimeout: number;
  /** Closes every session and stream. */
  close(): Promise<void>;
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
    context(maxRequestBytes) {
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
        maxRequestBytes,
      );
    },
    body: (max, timeout) => readBody(request, max, timeout).catch(() => undefined),
    onGone(callback) {
      request.signal.addEventListener('abort', callback, { once: true });
    },
  };
}

function acceptsSse(accept: string | undefined): boolean {
  return accept !== undefined && (accept.includes('text/event-stream') || accept.includes('*/*'));
}

/** Whether the CORS option names an origin explicitly (a list or predicate, never `'*'`). */
function explicitCorsOrigins(option: HttpHandlerOptions['cors']): (origin: string) => boolean {
  const allowed = typeof option === 'object' ? option.origin : undefined;
  if (allowed === undefined || allowed === '*') return () => false;
  if (typeof allowed === 'string') return (origin) => origin === allowed;
  if (typeof allowed === 'function') return (origin) => (allowed as (o: string) => boolean)(origin);
  return (origin) => (allowed as readonly string[]).includes(origin);
}

/** A send that is done. */
const SENT: Promise<void> = Promise.resolve();

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

/**
 * The streaming handler's sessions, routing and answers, without a runtime's request and
 * response objects: {@link createStreamableHttpHandler} and the node:http handler each adapt
 * it. Internal.
 *
 * @param server - anything with `connect(transport, context)`
 * @param options - as {@link createStreamableHttpHandler}
 * @param direct - the runtime writes event streams with `attach` (node:http), not their `body`
 * @returns the core
 */
export function createStreamableCore(
  server: ConnectionHandler,
  options: StreamableHttpHandlerOptions = {},
  direct = false,
): StreamableCore {
  const sessionOption = options.sessions ?? true;
  const stateful = sessionOption !== false;
  const so: StreamableSessionOptions = typeof sessionOption === 'object' ? sessionOption : {};
  const sessionHeader = (so.header ?? 'mcp-session-id').toLowerCase();
  // Browsers may read the session id only when CORS exposes it.
  const corsOption = options.cors;
  const cors =
    corsOption === undefined || corsOption === false
      ? corsOption
      : {
          ...(corsOption === true ? {} : corsOption),
          exposeHeaders: [
            ...((corsOption === true ? undefined : corsOption.exposeHeaders) ?? []),
            sessionHeader,
          ],
        };
  const cfg = resolveHandlerOptions(
    cors === undefined ? options : { ...options, cors },
    server.maxRequestBytes,
    stateful ? 'GET, POST, DELETE' : 'POST',
  );
  const idleTimeout = so.idleTimeout ?? DEFAULT_SESSION_IDLE_TIMEOUT;
  const maxSessions = so.maxSessions ?? DEFAULT_MAX_SESSIONS;
  if (!(maxSessions >= 1)) throw new RangeError(`maxSessions must be >= 1, got ${maxSessions}`);
  const maxPerClient = so.maxSessionsPerClient ?? DEFAULT_MAX_SESSIONS_PER_CLIENT;
  if (!(maxPerClient >= 1)) {
    throw new RangeError(`maxSessionsPerClient must be >= 1, got ${maxPerClient}`);
  }
  const clientKey =
    so.clientKey === false
      ? undefined
      : (so.clientKey ?? ((ctx: TransportContext) => ctx.remoteAddress));
  /** Sessions held on this process per client (those counted for one), kept while non-zero. */
  const perClient = new Map<string, number>();
  const originOf = keepOrigins();
  /** With `authenticate`, the principal a request speaks for; sessions are bound to it. */
  const principalOf =
    cfg.authenticate === undefined ? undefined : (so.principalOf ?? defaultPrincipalOf);
  /** The origin of a session a request would open: its client and principal. */
  const originFor = (ctx: HttpContext): SessionOrigin | undefined =>
    originOf(clientKey?.(ctx), principalOf?.(ctx.auth));
  const startMethod = so.startMethod === undefined ? 'initialize' : so.startMethod;
  // Without a shared store, the table of this process is the record: no second copy of it.
  const sessionStore = so.store;
  const sessionTtl = idleTimeout > 0 ? idleTimeout : Number.POSITIVE_INFINITY;
  const store =
    options.eventStore === false ? undefined : (options.eventStore ?? createMemoryEventStore());
  const mode = options.responseMode ?? 'auto';
  /** One keep-alive timer for every open stream of this handler. */
  const keepAlive = createKeepAlive(options.keepAliveInterval ?? DEFAULT_KEEP_ALIVE_INTERVAL);
  const maxBuffered = options.maxBufferedEvents ?? DEFAULT_MAX_BUFFERED_EVENTS;
  const maxBufferedBytes = options.maxBufferedBytes ?? DEFAULT_MAX_BUFFERED_BYTES;
  if (!(maxBufferedBytes > 0)) {
    throw new RangeError(`maxBufferedBytes must be > 0, got ${maxBufferedBytes}`);
  }
  const versions =
    options.protocolVersions === false
      ? undefined
      : (options.protocolVersions ?? MCP_PROTOCOL_VERSIONS);
  const guard = resolveOriginGuard(options, explicitCorsOrigins(options.cors));
  const methods = stateful ? METHODS : STATELESS_METHODS;
  const allow = ['allow', cfg.allow];
  const pushMethods: ReadonlySet<string> = new Set(options.pushMethods ?? DEFAULT_PUSH_METHODS);
  const sessions = createSessionTable<HttpSession>();
  let sweeper: ReturnType<typeof setInterval> | undefined;
  /** When a full table was last swept for expired sessions (at most once a second). */
  let sweptWhenFull = Number.NEGATIVE_INFINITY;
  /**
   * Sessions past their room check and not open yet (a shared store's `create` is awaited in
   * between): they count against the cap, so that concurrent starts cannot pass it.
   */
  let starting = 0;

  /**
   * Whether a session is past its idle timeout here: no request of its client for that long and
   * none of its requests or streams open on the client's side. Handlers still running do not keep
   * it: closing it aborts them (their `ctx.signal`).
   */
  const expired = (session: HttpSession, now: number): boolean =>
    idleTimeout > 0 && now - session.lastActive > idleTimeout && !session.connected;
  const sweep = (): void => {
    const now = clock();
    for (const session of sessions.values()) {
      if (session.connected) {
        void touchSession(session);
        continue;
      }
      // Idle here: this process lets go of it; the store expires it unless another serves it.
      if (expired(session, now)) void closeSession(session, undefined, false);
    }
  };
  /** Keeps a session alive in the store; with its stream's id, its record is written again. */
  const touchSession = async (session: HttpSession, streamId?: string): Promise<void> => {
    if (sessionStore === undefined || session.id === undefined) return;
    const principal = session.origin?.principal;
    try {
      await sessionStore.touch(
        session.id,
        sessionTtl,
        streamId === undefined
          ? undefined
          : principal === undefined
            ? { streamId }
            : { streamId, principal },
      );
    } catch {
      // the store is down: the session lives here until it comes back
    }
  };
  const startSweeper = (): void => {
    if (sweeper !== undefined || idleTimeout <= 0) return;
    sweeper = setInterval(sweep, Math.min(idleTimeout, 60_000));
    (sweeper as { unref?: () => void }).unref?.();
  };

  const finishExchange = (session: HttpSession, exchange: Exchange): void => {
    exchange.done = true;
    session.forget(exchange);
    session.lastActive = clock();
    if (exchange.stream !== undefined) exchange.stream.end();
    else if (exchange.answers === undefined) {
      exchange.respond({ kind: 'empty', status: 202, headers: exchange.headers });
    } else {
      const answers = exchange.answers;
      const body =
        answers.length === 1 && (!exchange.batch || answers[0]!.trimStart().startsWith('['))
          ? answers[0]!
          : `[${answers.map((a) => (a.trimStart().startsWith('[') ? a.trim().slice(1, -1) : a)).join(',')}]`;
      exchange.respond(reply(200, body, exchange.headers));
    }
    // A stateless session ends with its POST; not inside the server's `send` of the last answer.
    if (session.id === undefined) queueMicrotask(() => void closeSession(session));
  };

  /** An answer stream's client went away. */
  const answerStreamGone = (session: HttpSession): void => {
    // Without a store, nothing could replay the answers: stop what the client started.
    if (store === undefined && session.id === undefined) void closeSession(session);
  };

  const toStream = (exchange: Exchange, session: HttpSession): SseStream => {
    if (exchange.stream !== undefined) return exchange.stream;
    const stream = openSseStream({
      streamId: streamIdOf(session),
      store,
      keepAlive,
      maxBufferedEvents: maxBuffered,
      maxBufferedBytes,
      onGone: answerStreamGone,
      owner: session,
      direct,
    });
    exchange.stream = stream;
    exchange.respond(sse(stream, exchange.headers));
    const answers = exchange.answers;
    exchange.answers = undefined;
    for (const answer of answers ?? []) void stream.send(answer);
    return stream;
  };

  /** Routes one message the server sends on a session. */
  const route = (session: HttpSession, text: string): Promise<void> => {
    let ids: string[] | undefined;
    try {
      ids = answeredIds(text);
    } catch {
      ids = undefined;
    }
    if (ids !== undefined) {
      const exchange = session.waiterOfAny(ids);
      if (exchange === undefined) return sendStandalone(session, text, false);
      session.answered(exchange, ids);
      if (exchange.stream === undefined) {
        // A JSON answer: kept until the exchange's last one, then written at once.
        if (exchange.answers === undefined) exchange.answers = [text];
        else exchange.answers.push(text);
        if (exchange.left === 0) finishExchange(session, exchange);
        return SENT;
      }
      let sent = SENT;
      // One event per message: MCP clients read one message per event.
      if (text.trimStart().startsWith('[')) {
        // Cut from the text, not re-serialized: ids beyond 2^53 keep their digits.
        for (const member of batchMembers(text)) sent = exchange.stream.send(member);
      } else sent = exchange.stream.send(text);
      if (exchange.left === 0) return sent.then(() => finishExchange(session, exchange));
      return sent;
    }
    // Push not tied to any request (a subscription item) goes on the session's own stream.
    if (pushMethods.size > 0) {
      const method = (scanHead(text) ?? scanEnvelope(text)).method;
      if (method !== undefined && pushMethods.has(method))
        return sendStandalone(session, text, true);
    }
    // Not an answer: tie it to the exchange whose progress token it names, else to the newest
    // exchange still open, else the session's own stream.
    const target = session.carrierOf(text.includes('progressToken') ? tokenOf(text) : undefined);
    if (target !== undefined) return toStream(target, session).send(text);
    return sendStandalone(session, text, false);
  };

  /**
   * Cancels the calls of a POST that still wait for their answers, as the client would: with the
   * cancel notice of the server's protocol (its session's profile), so their `ctx.signal` aborts.
   */
  const cancelCalls = (session: HttpSession, exchange: Exchange): void => {
    const cancellation = (session.handler as { readonly profile?: Profile<unknown> } | undefined)
      ?.profile?.cancellation;
    if (cancellation === undefined) return;
    const method = JSON.stringify(cancellation.method);
    // The id goes in as its exact text (ids beyond 2^53 keep their digits).
    const template = JSON.stringify(cancellation.toParams(ID_MARK));
    for (const id of exchange.ids) {
      if (session.waiterOf(id) !== exchange) continue;
      const params = template.replace(ID_MARK_JSON, () => id);
      session.deliver(`{"jsonrpc":"2.0","method":${method},"params":${params}}`);
    }
  };

  /** Stops waiting for answers to cancelled requests, after a grace period for those answered. */
  const forgetCancelled = (session: HttpSession, ids: readonly string[]): void => {
    setTimeout(() => {
      for (const id of ids) {
        const exchange = session.waiterOf(id);
        if (exchange === undefined) continue;
        session.answered(exchange, [id]);
        if (exchange.left === 0 && !exchange.done) finishExchange(session, exchange);
      }
    }, CANCEL_GRACE);
  };

  /**
   * Sends on the session's GET stream. While it has never been open, push (subscription items)
   * waits for it, bounded, and anything else is dropped, as MCP allows, but for a request to the
   * client: its send fails (see {@link NO_STREAM}).
   */
  const sendStandalone = async (
    session: HttpSession,
    text: string,
    push: boolean,
  ): Promise<void> => {
    const activity = session.activity;
    if (activity?.resuming !== undefined) await activity.resuming;
    const stream = activity?.standalone;
    if (stream?.open === true) return stream.send(text);
    const standaloneId = activity?.standaloneId;
    if (store !== undefined && standaloneId !== undefined) {
      // The stream dropped (or is open on another process): stored, so that the client's
      // `Last-Event-ID` reconnection gets it.
      await store.append(standaloneId, text);
      return;
    }
    if (!push) {
      // A request sent nowhere would wait for an answer forever: its call fails now instead.
      if ((scanHead(text) ?? scanEnvelope(text)).kind === 'request')
        throw new TransportError(NO_STREAM);
      return;
    }
    // Not opened yet: kept for the first GET, the oldest dropped past the bound.
    const backlog = (session.activityState().backlog ??= new FifoQueue());
    if (backlog.length >= maxBuffered) backlog.shift();
    backlog.push(text);
  };

  /** Closes a session here; `forget` also removes it from the store (it ends everywhere). */
  const closeSession = async (
    session: HttpSession,
    reason?: unknown,
    forget = true,
  ): Promise<void> => {
    if (session.closed) return;
    const handler = session.handler;
    session.handler = CLOSED_HANDLER;
    if (session.id !== undefined) {
      sessions.delete(session.id);
      releaseClientSlot(session.origin?.client);
      if (forget && sessionStore !== undefined)
        await Promise.resolve(sessionStore.delete(session.id)).catch(() => undefined);
    }
    session.standalone?.end();
    const exchanges = session.exchanges;
    session.exchanges = undefined;
    for (const exchange of exchanges?.keys() ?? []) {
      exchange.done = true;
      exchange.stream?.end();
      if (exchange.stream === undefined)
        exchange.respond({ kind: 'empty', status: 204, headers: [] });
    }
    handler?.onClose(reason instanceof Error ? reason : undefined);
  };

  /** POST bodies are read with the server's parser when it has one, so its sessions parse none. */
  const serverParse = server.parse;
  const parseBody = serverParse ?? parse;
  const owner: SessionOwner = {
    route,
    closeSession,
    maxMessageBytes: cfg.maxRequestBytes,
    parse: serverParse,
  };
  const HandlerSession = sessionClass(owner);
  /** What sessions keep of their starting requests: one object while they start alike. */
  const factsOf = keepSessionFacts();

  /**
   * Opens a session; one with an id goes into the table, counted against the client of `origin`
   * (its slot already taken).
   */
  const openSession = (
    id: string | undefined,
    ctx: HttpContext,
    streamId?: string | undefined,
    origin?: SessionOrigin | undefined,
  ): HttpSession => {
    const session = new HandlerSession(id, streamId, origin);
    if (id !== undefined) {
      sessions.set(id, session);
      startSweeper();
    }
    // The session outlives the POST that started it: its context keeps what its calls may read
    // of that request (headers about the caller, address, auth), not its framing or signal.
    server.connect(session, factsOf(ctx));
    return session;
  };

  /** Sweeps out sessions past their idle timeout, at most once a second. */
  const sweepWhenFull = (): void => {
    const now = clock();
    if (now - sweptWhenFull >= 1000) {
      sweptWhenFull = now;
      sweep();
    }
  };

  /** Whether a session may start: when full, sessions past their idle timeout go first. */
  const roomForSession = (): boolean => {
    if (sessions.size + starting < maxSessions) return true;
    sweepWhenFull();
    return sessions.size + starting < maxSessions;
  };

  /**
   * Counts a session against its client: `false` (nothing counted) when the client holds its
   * share already, after sessions past their idle timeout are closed.
   */
  const takeClientSlot = (client: string | undefined): boolean => {
    if (client === undefined) return true;
    let held = perClient.get(client) ?? 0;
    if (held >= maxPerClient) {
      sweepWhenFull();
      held = perClient.get(client) ?? 0;
      if (held >= maxPerClient) return false;
    }
    perClient.set(client, held + 1);
    return true;
  };
  /** A session counted against its client is gone (or never opened). */
  const releaseClientSlot = (client: string | undefined): void => {
    if (client === undefined) return;
    const held = (perClient.get(client) ?? 1) - 1;
    if (held <= 0) perClient.delete(client);
    else perClient.set(client, held);
  };

  /** The answer when a client holds its share of the sessions already. */
  const clientFull = (cors: readonly string[]): StreamableReply =>
    reply(503, errorBody(-32000, 'Service Unavailable: too many sessions from this client'), [
      ...cors,
      'retry-after',
      String(SESSIONS_FULL_RETRY_AFTER),
    ]);

  /** The answer when this process has no room for another session. */
  const sessionsFull = (cors: readonly string[]): StreamableReply =>
    reply(503, errorBody(-32000, 'Service Unavailable: too many sessions'), [
      ...cors,
      'retry-after',
      String(SESSIONS_FULL_RETRY_AFTER),
    ]);

  /** The answer for a session that is unknown, ended or expired. */
  const notFound = (cors: readonly string[]): StreamableReply =>
    reply(404, errorBody(-32001, 'Session not found'), cors);

  /** The answer when the session store cannot be reached. */
  const storeDown = (cors: readonly string[]): StreamableReply =>
    reply(503, errorBody(-32000, 'Service Unavailable: session store'), cors);

  /**
   * The session a request names: this process's, or one the store knows (continued here). Without
   * a store the answer is at hand, not a promise.
   */
  const sessionOf = (
    incoming: StreamableIncoming,
    ctx: HttpContext,
    cors: readonly string[],
  ): HttpSession | StreamableReply | Promise<HttpSession | StreamableReply> => {
    const id = incoming.header(sessionHeader);
    if (id === undefined) {
      return reply(
        400,
        errorBody(-32000, `Bad Request: ${sessionHeader} header is required`),
        cors,
      );
    }
    const session = sessions.get(id);
    if (sessionStore !== undefined) return storedSessionOf(sessionStore, id, session, ctx, cors);
    // This process's sessions only: known and not past its idle timeout, or not found.
    if (session === undefined || session.closed) return notFound(cors);
    // Bound to another principal: as unknown, and not kept alive by this request.
    if (principalOf !== undefined && session.origin?.principal !== principalOf(ctx.auth)) {
      return notFound(cors);
    }
    const now = clock();
    if (expired(session, now)) {
      void closeSession(session);
      return notFound(cors);
    }
    session.lastActive = now;
    return session;
  };

  /** {@link sessionOf} with a session store: the store says whether the session lives. */
  const storedSessionOf = async (
    sessionStore: SessionStore,
    id: string,
    local: HttpSession | undefined,
    ctx: HttpContext,
    cors: readonly string[],
  ): Promise<HttpSession | StreamableReply> => {
    let session = local;
    const record: SessionRecord | undefined | null = await Promise.resolve(
      sessionStore.lookup(id, sessionTtl),
    ).catch(
      // The store is down: this process's sessions go on; others cannot be told from unknown ones.
      () => (session === undefined ? null : {}),
    );
    if (record === null) {
      return storeDown(cors);
    }
    if (record === undefined) {
      // Ended or expired (possibly on another process).
      if (session !== undefined) void closeSession(session, undefined, false);
      return notFound(cors);
    }
    // Another request of the session may have continued it here while this one looked it up.
    session = sessions.get(id);
    if (session === undefined || session.closed) {
      const origin = originFor(ctx);
      // Bound to another principal (the store's record says which): as unknown.
      if (principalOf !== undefined && record.principal !== origin?.principal) {
        return notFound(cors);
      }
      // Continued here: it counts against this process's caps like a session started here.
      if (!roomForSession()) return sessionsFull(cors);
      if (!takeClientSlot(origin?.client)) return clientFull(cors);
      session = openSession(id, ctx, record.streamId, origin);
    } else if (principalOf !== undefined && session.origin?.principal !== principalOf(ctx.auth)) {
      return notFound(cors);
    } else if (record.streamId !== undefined && session.standalone?.open !== true) {
      // Another process may have opened the session's stream since: resume that one as its own.
      session.activityState().standaloneId = record.streamId;
    }
    session.lastActive = clock();
    return session;
  };

  const post = async (
    incoming: StreamableIncoming,
    ctx: HttpContext,
    cors: readonly string[],
  ): Promise<StreamableReply> => {
    const text = await incoming.body(cfg.maxRequestBytes, cfg.bodyTimeout);
    if (text === undefined)
      return reply(400, errorBody(-32600, 'Request body could not be read'), cors);
    if (text === TOO_LARGE) {
      return { kind: 'json', status: 413, body: cfg.tooLargeBody, headers: cors, early: true };
    }
    if (text === TIMED_OUT) return reply(408, BODY_TIMEOUT_BODY, cors);
    const parsed = parseBody(text);
    const classified = classify(parsed, text, startMethod);
    if ('refused' in classified) return reply(400, classified.refused, cors);
    let session: HttpSession;
    let headers = cors;
    if (!stateful) session = openSession(undefined, ctx);
    else if (incoming.header(sessionHeader) === undefined && classified.startsSession) {
      if (!roomForSession()) return sessionsFull(cors);
      const origin = originFor(ctx);
      if (!takeClientSlot(origin?.client)) return clientFull(cors);
      const id = randomId();
      starting++;
      try {
        if (sessionStore !== undefined) await sessionStore.create(id, recordOf(origin), sessionTtl);
      } catch {
        releaseClientSlot(origin?.client);
        return storeDown(cors);
      } finally {
        starting--;
      }
      session = openSession(id, ctx, undefined, origin);
      headers = [...cors, sessionHeader, id];
    } else {
      let found = sessionOf(incoming, ctx, cors);
      if (isPromiseLike(found)) found = await found;
      if (isReply(found)) return found;
      session = found;
      headers = [...cors, sessionHeader, found.id!];
    }
    // An id can wait for its answer in one POST of a session at a time: a second would take the
    // first one's answer (a client may not reuse an id in a session). Refused whole, unread.
    const taken = classified.ids.find((id) => session.waiterOf(id) !== undefined);
    if (taken !== undefined) {
      return reply(
        400,
        errorBody(-32600, `Invalid Request: id ${taken} is already in use in this session`),
        headers,
      );
    }
    const { cancelled } = classified;
    if (cancelled.length > 0) {
      // Deliver first: a protocol that does answer a cancelled request (LSP) still can, on the
      // stream of an exchange that waits for other answers; one that waits for nothing else ends.
      queueMicrotask(() => forgetCancelled(session, cancelled));
    }
    if (!classified.hasRequest) {
      session.deliver(text, parsed);
      if (session.id === undefined) void closeSession(session);
      return { kind: 'empty', status: 202, headers };
    }
    const streamable = mode !== 'json' && acceptsSse(incoming.header('accept'));
    const replied = awaitAnswers(session, incoming, headers, classified, streamable);
    session.deliver(text, parsed);
    return replied;
  };

  /**
   * The exchange of a POST that waits for answers: what it waits for, and its end when the client
   * goes away. No closure here holds the body or what was parsed of it: a large request is not
   * kept alive while its answers are worked out.
   */
  const awaitAnswers = (
    session: HttpSession,
    incoming: StreamableIncoming,
    headers: readonly string[],
    classified: Classified,
    streamable: boolean,
  ): Promise<StreamableReply> => {
    let respond!: (reply: StreamableReply) => void;
    const replied = new Promise<StreamableReply>((resolve) => {
      respond = resolve;
    });
    const tokens: string[] = [];
    for (const r of classified.requests) {
      const token = progressToken(r);
      if (token !== undefined) tokens.push(token);
    }
    const exchange: Exchange = {
      ids: classified.ids,
      left: 0,
      tokens,
      batch: classified.batch,
      streamable,
      older: undefined,
      newer: undefined,
      answers: undefined,
      stream: undefined,
      done: false,
      gone: false,
      respond,
      headers,
    };
    session.wait(exchange, classified.ids);
    if (streamable && mode === 'sse') toStream(exchange, session);
    incoming.onGone(() => {
      if (exchange.done) return;
      // The client went away: the session is idle from now on, whatever still runs.
      exchange.gone = true;
      session.lastActive = clock();
      // Without a store nothing can replay the answers.
      if (store === undefined || session.id === undefined) {
        exchange.done = true;
        // Nothing could deliver their answers: the calls still running are cancelled.
        if (session.id !== undefined) cancelCalls(session, exchange);
        session.forget(exchange);
        exchange.stream?.end();
        if (session.id === undefined) void closeSession(session);
      }
    });
    return replied;
  };

  const get = async (
    incoming: StreamableIncoming,
    ctx: HttpContext,
    cors: readonly string[],
  ): Promise<StreamableReply> => {
    if (!acceptsSse(incoming.header('accept'))) {
      return reply(
        406,
        errorBody(-32000, 'Not Acceptable: Client must accept text/event-stream'),
        cors,
      );
    }
    const found = await sessionOf(incoming, ctx, cors);
    if (isReply(found)) return found;
    const session = found;
    const headers = [...cors, sessionHeader, session.id!];
    const last = incoming.header('last-event-id');
    if (last !== undefined && store !== undefined) {
      let backlog = '';
      let resumed!: () => void;
      const resuming = new Promise<void>((resolve) => {
        resumed = resolve;
      });
      const activity = session.activityState();
      activity.resuming = resuming;
      let streamId: string | undefined;
      try {
        streamId = await store.replayAfter(last, (id, message) => {
          backlog += encodeSseEvent(message, id);
        });
      } finally {
        // Push that waited goes out after the replay, on the stream put in place below.
        queueMicrotask(() => {
          if (activity.resuming === resuming) activity.resuming = undefined;
          resumed();
        });
      }
      // Another session's event (or an unknown one) is not found: nothing of it is sent.
      if (streamId === undefined || !ownsStream(session, streamId)) {
        return reply(404, errorBody(-32001, 'Event not found'), cors);
      }
      const stream = open(streamId, session, backlog);
      let exchange: Exchange | undefined;
      for (const e of session.exchanges?.keys() ?? [])
        if (e.stream?.streamId === streamId) exchange = e;
      if (exchange !== undefined) {
        // A request stream resumed while its requests still run: the rest goes here.
        exchange.stream!.end();
        exchange.stream = stream;
      } else if (activity.standaloneId === streamId) {
        activity.standalone?.end();
        activity.standalone = stream;
      } else stream.end();
      return sse(stream, headers);
    }
    if (session.standalone?.open === true) {
      return reply(
        409,
        errorBody(-32000, 'Conflict: Only one SSE stream is allowed per session'),
        cors,
      );
    }
    const streamId = streamIdOf(session);
    const stream = open(streamId, session, undefined);
    const activity = session.activityState();
    activity.standaloneId = streamId;
    activity.standalone = stream;
    // Another process continuing the session resumes this stream as the session's own.
    void touchSession(session, streamId);
    const backlog = activity.backlog;
    activity.backlog = undefined;
    if (backlog !== undefined) {
      for (let m = backlog.shift(); m !== undefined; m = backlog.shift()) void stream.send(m);
    }
    return sse(stream, headers);
  };

  const open = (streamId: string, session: HttpSession, prelude: string | undefined): SseStream =>
    openSseStream({
      streamId,
      store,
      keepAlive,
      maxBufferedEvents: maxBuffered,
      maxBufferedBytes,
      onGone: streamGone,
      owner: session,
      prelude,
      direct,
    });

  /** A session's stream ended from the client's side: the session is idle from now on. */
  const streamGone = (session: HttpSession): void => {
    session.lastActive = clock();
  };

  /** Runs the `authenticate` hook (there is one): the context with its `auth`, or the refusal. */
  const admit = async (
    ctx: HttpContext,
    cors: readonly string[],
  ): Promise<HttpContext | StreamableReply> => {
    let auth: unknown;
    try {
      auth = await cfg.authenticate!(ctx);
    } catch (error) {
      return rejection(error, cors);
    }
    if (auth instanceof HttpError) return rejection(auth, cors);
    ctx.auth = auth;
    return ctx;
  };
  const rejection = (error: unknown, cors: readonly string[]): StreamableReply => {
    const r = rejectionOf(error, cfg.onError);
    return reply(r.status, r.body, [...cors, ...r.headers]);
  };

  /** Serves an admitted request: a POST, the session's stream (GET) or its end (DELETE). */
  const serve = (
    incoming: StreamableIncoming,
    ctx: HttpContext,
    cors: readonly string[],
  ): Promise<StreamableReply> => {
    if (incoming.method === 'POST') return post(incoming, ctx, cors);
    if (incoming.method === 'GET') return get(incoming, ctx, cors);
    return endSession(incoming, ctx, cors);
  };

  /** DELETE: ends the session it names. */
  const endSession = async (
    incoming: StreamableIncoming,
    ctx: HttpContext,
    cors: readonly string[],
  ): Promise<StreamableReply> => {
    const found = await sessionOf(incoming, ctx, cors);
    if (isReply(found)) return found;
    await closeSession(found);
    return { kind: 'empty', status: 200, headers: cors };
  };

  /** Serves a request once `authenticate` let it in. */
  const admitted = async (
    incoming: StreamableIncoming,
    context: HttpContext,
    cors: readonly string[],
  ): Promise<StreamableReply> => {
    const ctx = await admit(context, cors);
    return ctx instanceof HttpContext ? serve(incoming, ctx, cors) : ctx;
  };

  /**
   * Answers one request. Not an `async` function: a POST's own promise is handed on as it is,
   * without one more promise resolved with it (and its two extra turns of the microtask queue).
   */
  const handle = (incoming: StreamableIncoming): Promise<StreamableReply> => {
    try {
      const decision = checkRequest(
        cfg,
        incoming.method,
        incoming.header,
        methods,
        allow,
        guard,
        incoming.localAddress,
      );
      if (decision.kind === 'answer') return Promise.resolve({ kind: 'policy', decision });
      const cors = decision.cors;
      const version = incoming.header('mcp-protocol-version');
      if (versions !== undefined && version !== undefined && !versions.includes(version)) {
        return Promise.resolve(
          reply(
            400,
            errorBody(
              -32000,
              `Bad Request: Unsupported protocol version: ${version} (supported versions: ${versions.join(', ')})`,
            ),
            cors,
          ),
        );
      }
      const context = incoming.context(cfg.maxRequestBytes);
      if (cfg.authenticate !== undefined) return admitted(incoming, context, cors);
      return serve(incoming, context, cors);
    } catch (error) {
      return Promise.reject(error);
    }
  };

  return {
    handle,
    bodyTimeout: cfg.bodyTimeout,
    get sessions() {
      return sessions.size;
    },
    async close() {
      if (sweeper !== undefined) clearInterval(sweeper);
      sweeper = undefined;
      const all = [...sessions.values()];
      // A shared store keeps the sessions for the other processes.
      await Promise.all(all.map((s) => closeSession(s, undefined, so.store === undefined)));
    },
  };
}
