/**
 * The options of the Streamable HTTP handlers and their defaults.
 *
 * @module
 */
import {
  ethereumSubscriptions,
  genericSubscriptions,
  type TransportContext,
} from '@jsonrpc-kit/core';
import type { EventStore } from './event-store.js';
import type { HttpHandlerOptions } from './handler-options.js';
import type { OriginGuardOptions } from './request-policy.js';
import type { SessionRecord, SessionStore } from './session-store.js';

/** Options of the sessions of {@link createStreamableHttpHandler}. */
export interface StreamableSessionOptions {
  /**
   * The header that carries the session id.
   *
   * @default 'mcp-session-id'
   */
  readonly header?: string;
  /**
   * Milliseconds a session may stay idle before it is closed: counted from its client's last
   * request, or from when its last open stream or waiting POST went away. Handlers still running
   * do not keep a session whose client left: closing it aborts them (their `ctx.signal`).
   *
   * @default 600000 ({@link DEFAULT_SESSION_IDLE_TIMEOUT})
   */
  readonly idleTimeout?: number;
  /**
   * The method whose request starts a session (a POST without a session id must hold it);
   * `null`: any first POST starts one.
   *
   * @default 'initialize'
   */
  readonly startMethod?: string | null;
  /**
   * Where sessions are recorded. A shared store (`createRedisSessionStore()` of
   * `@jsonrpc-kit/redis`), with a shared `eventStore`, lets a session continue on any process
   * behind a load balancer: a request or a `Last-Event-ID` resumption landing on a process that
   * did not start the session is served there. What runs (a handler, a server→client request, the
   * open GET stream) stays on its process: see the README on load balancing.
   *
   * @default this process's own table (as a `createMemorySessionStore()` would keep them, without
   *   a second copy)
   */
  readonly store?: SessionStore;
  /**
   * Carries the client's answers to server→client requests between processes (a request's
   * `ctx.peer.request`: MCP's elicitation, sampling, roots): the answer may reach any process, and
   * the relay hands it to the one that sent the request. `createRedisFanout()` of
   * `@jsonrpc-kit/redis` is one. With a shared `store` and `eventStore`, a session then needs no
   * affinity at the load balancer. Only answers that no request of the process they reached waits
   * for are published.
   *
   * @default none: such an answer must reach the process that sent the request
   */
  readonly relay?: AnswerRelay;
  /**
   * Most sessions open at once on this process (with a shared `store`, each process counts its
   * own). When full, a request that would start one, or continue here a session of another
   * process, is answered `503 Service Unavailable` with `Retry-After` (after idle sessions past
   * their timeout are closed), so a flood of `initialize` requests cannot grow memory until the
   * idle timeout, and cannot push out the sessions of clients already connected either.
   * `Infinity`: no bound.
   *
   * @default 10000 ({@link DEFAULT_MAX_SESSIONS})
   */
  readonly maxSessions?: number;
  /**
   * Most sessions one client (see {@link StreamableSessionOptions.clientKey}) may hold open at
   * once on this process. Past it, a request that would start one (or continue here a session of
   * another process) is answered `503 Service Unavailable` with `Retry-After`, so that one address
   * flooding `initialize` cannot take the whole table from every other client. Behind a reverse
   * proxy every request comes from the proxy: key on the forwarded address, or raise this.
   * `Infinity`: no bound but `maxSessions`.
   *
   * @default 1000 ({@link DEFAULT_MAX_SESSIONS_PER_CLIENT}, a tenth of the default `maxSessions`,
   *   as `listen()` and the WebSocket server allow one address 1,000 of 10,000 connections)
   */
  readonly maxSessionsPerClient?: number;
  /**
   * Who a session belongs to, for `maxSessionsPerClient`: read from the request that starts it
   * (after `authenticate`, so `ctx.auth` may be used). Takes the same function as the server's
   * own `clientKey` option. `undefined`: a session counted for no client (only `maxSessions`
   * bounds those). `false`: no bound per client.
   *
   * @default the remote address (`ctx.remoteAddress`), as the server's fair admission keys
   */
  readonly clientKey?: ((context: TransportContext) => string | undefined) | false;
  /**
   * Who a request speaks for, from what `authenticate` returned: with `authenticate` set, a
   * session is bound to the principal of the request that opened it, and a request of another
   * principal naming it (POST, GET, DELETE) is answered 404 as an unknown session would be, so a
   * session id alone, leaked or guessed, neither acts as its owner nor learns that the session
   * exists. The principal is kept in the session's {@link SessionRecord}, so every process sharing
   * the store checks it. Without `authenticate` nothing is compared.
   *
   * @default the auth value itself when a string or number; its `sub` or `subject` member when a
   *   string or number; otherwise its JSON text (every member must then be equal: key the
   *   principal yourself when the auth value holds something that changes between requests, such
   *   as a token's expiry); `undefined` for `null` or `undefined` (anonymous, bound to anonymous)
   */
  readonly principalOf?: (auth: unknown) => string | undefined;
}

/** Options of {@link createStreamableHttpHandler}. */
export interface StreamableHttpHandlerOptions extends HttpHandlerOptions, OriginGuardOptions {
  /**
   * Sessions: `true` (the defaults of {@link StreamableSessionOptions}) or options; `false` for a
   * stateless endpoint (each POST is its own short connection; no GET stream, no DELETE, and no
   * server→client requests answered across POSTs).
   *
   * @default true
   */
  readonly sessions?: boolean | StreamableSessionOptions;
  /**
   * Where events are kept for `Last-Event-ID` resumption; `false` for none.
   *
   * @default a {@link createMemoryEventStore} with its defaults
   */
  readonly eventStore?: EventStore | false;
  /**
   * How a POST holding requests is answered: `'auto'` answers JSON unless the server sends
   * something else tied to the requests (progress, a server→client request) before their
   * answers, then switches to an event stream; `'sse'` always streams; `'json'` never streams.
   * A client that does not accept `text/event-stream` always gets JSON.
   *
   * @default 'auto'
   */
  readonly responseMode?: 'auto' | 'sse' | 'json';
  /**
   * Milliseconds of silence on a stream before a keep-alive comment; `0` sends none.
   *
   * @default 15000 ({@link DEFAULT_KEEP_ALIVE_INTERVAL})
   */
  readonly keepAliveInterval?: number;
  /**
   * Events a slow reader may leave queued on one stream. Past 64, senders that await (such as
   * `ctx.peer.notify`) wait for the reader; beyond this bound the stream is ended (its events stay
   * in the event store for the client to resume from).
   *
   * @default 1000 ({@link DEFAULT_MAX_BUFFERED_EVENTS})
   */
  readonly maxBufferedEvents?: number;
  /**
   * Bytes a slow reader may leave queued on one stream beyond what its socket takes. A stream
   * still holding this much when another event comes is dropped: its connection is destroyed (not
   * ended, so nothing written stays queued for a client that does not read) and, with an event
   * store, what it did not deliver is resumed with `Last-Event-ID`. An event is always written when
   * nothing is queued, whatever its size. `Infinity`: no bound but {@link maxBufferedEvents}.
   *
   * @default 1048576 ({@link DEFAULT_MAX_BUFFERED_BYTES}, 1 MiB)
   */
  readonly maxBufferedBytes?: number;
  /**
   * MCP protocol versions accepted in the `MCP-Protocol-Version` header (an unknown one is
   * answered 400); `false` ignores the header.
   *
   * @default {@link MCP_PROTOCOL_VERSIONS}
   */
  readonly protocolVersions?: readonly string[] | false;
  /**
   * Notification methods that are never tied to a request (subscription items and ends): they go
   * out on the session's GET stream, kept until it opens (in the event store once it was open).
   * Other messages the server sends while a request of the session runs go on that request's
   * stream.
   *
   * @default {@link DEFAULT_PUSH_METHODS}
   */
  readonly pushMethods?: readonly string[];
}

/**
 * Milliseconds an idle session is kept.
 *
 * @default 600000 (10 minutes)
 */
export const DEFAULT_SESSION_IDLE_TIMEOUT: number = 600_000;
/**
 * Most sessions a streaming handler keeps open at once (as many as a WebSocket server's
 * connections).
 *
 * @default 10000
 */
export const DEFAULT_MAX_SESSIONS: number = 10_000;
/**
 * Seconds a client is asked to wait (`Retry-After`) when the handler has no room for a session.
 *
 * @default 5
 */
export const SESSIONS_FULL_RETRY_AFTER: number = 5;
/**
 * Most sessions one client (by default one remote address) may hold open at once on a streaming
 * handler's process: a tenth of {@link DEFAULT_MAX_SESSIONS}.
 *
 * @default 1000
 */
export const DEFAULT_MAX_SESSIONS_PER_CLIENT: number = 1000;
/**
 * Milliseconds of silence on a stream before a keep-alive comment.
 *
 * @default 15000
 */
export const DEFAULT_KEEP_ALIVE_INTERVAL: number = 15_000;
/**
 * Events a slow reader may leave queued on one stream.
 *
 * @default 1000
 */
export const DEFAULT_MAX_BUFFERED_EVENTS: number = 1000;
/**
 * Bytes a slow reader may leave queued on one stream before its connection is dropped: below the
 * event store's bound of one stream (4 MiB), so what is dropped can be resumed.
 *
 * @default 1048576 (1 MiB)
 */
export const DEFAULT_MAX_BUFFERED_BYTES: number = 1024 * 1024;
/**
 * The notifications that go on the GET stream by default: the item and end methods of the
 * subscription dialects in core (`subscription`, `subscription.end`, `eth_subscription`).
 */
export const DEFAULT_PUSH_METHODS: readonly string[] = [
  genericSubscriptions.item,
  genericSubscriptions.end!,
  ethereumSubscriptions.item,
];
/** The MCP protocol versions accepted in `MCP-Protocol-Version` by default. */
export const MCP_PROTOCOL_VERSIONS: readonly string[] = [
  '2025-11-25',
  '2025-06-18',
  '2025-03-26',
  '2024-11-05',
];

/**
 * Carries text between the processes of one endpoint: the shape of the server's
 * `SubscriptionFanout` (`createRedisFanout()` of `@jsonrpc-kit/redis` has it).
 */
export interface AnswerRelay {
  /**
   * Sends a text to every process listening to `topic`.
   *
   * @param topic - the topic
   * @param text - the text
   * @returns resolves once the relay took it
   */
  publishText(topic: string, text: string): Promise<void>;
  /**
   * Listens to `topic`.
   *
   * @param topic - the topic
   * @param listener - receives each text
   * @returns resolves, once texts published from now on are sure to arrive, to a function that
   *   stops listening
   */
  subscribeText(topic: string, listener: (text: string) => void): Promise<() => Promise<void>>;
}
