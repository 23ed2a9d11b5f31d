/**
 * What one Streamable HTTP handler holds: its options, resolved once, and its sessions' shared
 * state. Every part of the handler (sessions, routing, POST, GET, DELETE) takes it as its first
 * argument, so that the parts live in files of their own and a request makes no closure.
 *
 * @module
 */
import { type ParseResult, parse, type TransportContext } from '@jsonrpc-kit/core';
import type { ConnectionHandler } from '@jsonrpc-kit/core/engine';
import { createMemoryEventStore, type EventStore } from './event-store.js';
import type { HttpHandlerOptions } from './handler-options.js';
import type { HttpContext } from './http-context.js';
import type { HttpSession } from './http-session.js';
import { type OriginGuard, resolveOriginGuard } from './request-policy.js';
import { type ResolvedHandlerOptions, resolveHandlerOptions } from './resolve-options.js';
import { keepSessionFacts } from './session-facts.js';
import { defaultPrincipalOf, keepOrigins, type SessionOrigin } from './session-origin.js';
import type { SessionStore } from './session-store.js';
import { createSessionTable, type SessionTable } from './session-table.js';
import { createKeepAlive, type KeepAlive } from './sse-keep-alive.js';
import {
  DEFAULT_KEEP_ALIVE_INTERVAL,
  DEFAULT_MAX_BUFFERED_BYTES,
  DEFAULT_MAX_BUFFERED_EVENTS,
  DEFAULT_MAX_SESSIONS,
  DEFAULT_MAX_SESSIONS_PER_CLIENT,
  DEFAULT_PUSH_METHODS,
  DEFAULT_SESSION_IDLE_TIMEOUT,
  MCP_PROTOCOL_VERSIONS,
  type StreamableHttpHandlerOptions,
  type StreamableSessionOptions,
} from './streamable-options.js';

const METHODS: ReadonlySet<string> = new Set(['POST', 'GET', 'DELETE']);
const STATELESS_METHODS: ReadonlySet<string> = new Set(['POST']);

/** Whether the CORS option names an origin explicitly (a list or predicate, never `'*'`). */
function explicitCorsOrigins(option: HttpHandlerOptions['cors']): (origin: string) => boolean {
  const allowed = typeof option === 'object' ? option.origin : undefined;
  if (allowed === undefined || allowed === '*') return () => false;
  if (typeof allowed === 'string') return (origin) => origin === allowed;
  if (typeof allowed === 'function') return (origin) => (allowed as (o: string) => boolean)(origin);
  return (origin) => (allowed as readonly string[]).includes(origin);
}

/** The class a handler makes its sessions from (its owner on the prototype). */
export type HttpSessionClass = new (
  id: string | undefined,
  streamId: string | undefined,
  origin: SessionOrigin | undefined,
) => HttpSession;

/** One streaming handler's options, resolved, and the state its sessions share. Internal. */
export class StreamableState {
  /** The server each session is connected to. */
  readonly server: ConnectionHandler;
  /** The runtime writes event streams with `attach` (node:http), not their `body`. */
  readonly direct: boolean;
  /** Whether there are sessions (else each POST is its own short connection). */
  readonly stateful: boolean;
  /** The session options. */
  readonly so: StreamableSessionOptions;
  /** The header that carries the session id, lower case. */
  readonly sessionHeader: string;
  /** The options every HTTP handler shares, resolved. */
  readonly cfg: ResolvedHandlerOptions;
  /** Milliseconds a session may stay idle (`0`: forever). */
  readonly idleTimeout: number;
  /** Most sessions open at once here. */
  readonly maxSessions: number;
  /** Most sessions of one client here. */
  readonly maxPerClient: number;
  /** Who a session belongs to, for `maxPerClient`; `undefined`: no bound per client. */
  readonly clientKey: ((context: TransportContext) => string | undefined) | undefined;
  /** Sessions held on this process per client (those counted for one), kept while non-zero. */
  readonly perClient: Map<string, number> = new Map();
  /** Keeps one origin record for sessions opened alike. */
  readonly originOf: (
    client: string | undefined,
    principal: string | undefined,
  ) => SessionOrigin | undefined = keepOrigins();
  /** With `authenticate`, the principal a request speaks for; sessions are bound to it. */
  readonly principalOf: ((auth: unknown) => string | undefined) | undefined;
  /** The method whose request starts a session; `null`: any. */
  readonly startMethod: string | null;
  /** The shared session store, if any (without one, the table of this process is the record). */
  readonly sessionStore: SessionStore | undefined;
  /** How long the store keeps an idle session. */
  readonly sessionTtl: number;
  /** Where events are kept for `Last-Event-ID` resumption, if anywhere. */
  readonly store: EventStore | undefined;
  /** How a POST holding requests is answered. */
  readonly mode: 'auto' | 'sse' | 'json';
  /** One keep-alive timer for every open stream of this handler. */
  readonly keepAlive: KeepAlive | undefined;
  /** Events a slow reader may leave queued on one stream. */
  readonly maxBuffered: number;
  /** Bytes a slow reader may leave queued on one stream. */
  readonly maxBufferedBytes: number;
  /** MCP protocol versions accepted, or `undefined` to ignore the header. */
  readonly versions: readonly string[] | undefined;
  /** The `Host` and `Origin` checks. */
  readonly guard: OriginGuard;
  /** The HTTP methods served. */
  readonly methods: ReadonlySet<string>;
  /** The `Allow` header of a 405, as a flat name/value list. */
  readonly allow: readonly string[];
  /** Notification methods that go on the GET stream. */
  readonly pushMethods: ReadonlySet<string>;
  /** This process's sessions. */
  readonly sessions: SessionTable<HttpSession> = createSessionTable<HttpSession>();
  /** The expiry sweep's timer, while there are sessions with an id. */
  sweeper: ReturnType<typeof setInterval> | undefined = undefined;
  /** When a full table was last swept for expired sessions (at most once a second). */
  sweptWhenFull: number = Number.NEGATIVE_INFINITY;
  /**
   * Sessions past their room check and not open yet (a shared store's `create` is awaited in
   * between): they count against the cap, so that concurrent starts cannot pass it.
   */
  starting = 0;
  /** The server's parser, when it offers one: POST bodies are read with it, so sessions parse none. */
  readonly serverParse: ((text: string) => ParseResult) | undefined;
  /** What POST bodies are parsed with. */
  readonly parseBody: (text: string) => ParseResult;
  /** What sessions keep of their starting requests: one object while they start alike. */
  readonly factsOf: (ctx: HttpContext) => TransportContext = keepSessionFacts();
  /** The class of this handler's sessions: set by the core, which knows their owner. */
  HandlerSession!: HttpSessionClass;
  /** Resolves once this process listens to `sessions.relay` (with a relay only). */
  relayListening: Promise<void> | undefined = undefined;
  /** Stops listening to the relay, once listening. */
  stopRelay: (() => Promise<void>) | undefined = undefined;
  /** An answer stream's client went away: set by the core (one closure per handler). */
  onAnswerStreamGone!: (session: HttpSession) => void;

  /**
   * Resolves the options.
   *
   * @param server - anything with `connect(transport, context)`
   * @param options - as `createStreamableHttpHandler`'s
   * @param direct - the runtime writes event streams with `attach` (node:http)
   * @throws RangeError when a limit is out of range
   */
  constructor(server: ConnectionHandler, options: StreamableHttpHandlerOptions, direct: boolean) {
    this.server = server;
    this.direct = direct;
    const sessionOption = options.sessions ?? true;
    const stateful = sessionOption !== false;
    this.stateful = stateful;
    const so: StreamableSessionOptions = typeof sessionOption === 'object' ? sessionOption : {};
    this.so = so;
    const sessionHeader = (so.header ?? 'mcp-session-id').toLowerCase();
    this.sessionHeader = sessionHeader;
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
      server.maxMessageBytes,
      stateful ? 'GET, POST, DELETE' : 'POST',
    );
    this.cfg = cfg;
    const idleTimeout = so.idleTimeout ?? DEFAULT_SESSION_IDLE_TIMEOUT;
    this.idleTimeout = idleTimeout;
    const maxSessions = so.maxSessions ?? DEFAULT_MAX_SESSIONS;
    if (!(maxSessions >= 1)) throw new RangeError(`maxSessions must be >= 1, got ${maxSessions}`);
    this.maxSessions = maxSessions;
    const maxPerClient = so.maxSessionsPerClient ?? DEFAULT_MAX_SESSIONS_PER_CLIENT;
    if (!(maxPerClient >= 1)) {
      throw new RangeError(`maxSessionsPerClient must be >= 1, got ${maxPerClient}`);
    }
    this.maxPerClient = maxPerClient;
    this.clientKey =
      so.clientKey === false
        ? undefined
        : (so.clientKey ?? ((ctx: TransportContext) => ctx.remoteAddress));
    this.principalOf =
      cfg.authenticate === undefined ? undefined : (so.principalOf ?? defaultPrincipalOf);
    this.startMethod = so.startMethod === undefined ? 'initialize' : so.startMethod;
    this.sessionStore = so.store;
    this.sessionTtl = idleTimeout > 0 ? idleTimeout : Number.POSITIVE_INFINITY;
    this.store =
      options.eventStore === false ? undefined : (options.eventStore ?? createMemoryEventStore());
    this.mode = options.responseMode ?? 'auto';
    this.keepAlive = createKeepAlive(options.keepAliveInterval ?? DEFAULT_KEEP_ALIVE_INTERVAL);
    this.maxBuffered = options.maxBufferedEvents ?? DEFAULT_MAX_BUFFERED_EVENTS;
    const maxBufferedBytes = options.maxBufferedBytes ?? DEFAULT_MAX_BUFFERED_BYTES;
    if (!(maxBufferedBytes > 0)) {
      throw new RangeError(`maxBufferedBytes must be > 0, got ${maxBufferedBytes}`);
    }
    this.maxBufferedBytes = maxBufferedBytes;
    this.versions =
      options.protocolVersions === false
        ? undefined
        : (options.protocolVersions ?? MCP_PROTOCOL_VERSIONS);
    this.guard = resolveOriginGuard(options, explicitCorsOrigins(options.cors));
    this.methods = stateful ? METHODS : STATELESS_METHODS;
    this.allow = ['allow', cfg.allow];
    this.pushMethods = new Set(options.pushMethods ?? DEFAULT_PUSH_METHODS);
    this.serverParse = server.parse;
    this.parseBody = this.serverParse ?? parse;
  }
}
