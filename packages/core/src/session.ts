/**
 * The session: one duplex conversation over one transport, the engine under the client and
 * under each of the server's connections. Small parts, composed; no base class.
 *
 * ```text
 * start(dispatch) ── transport.start ── onMessage(text)
 *   ├─ screen(text) answers instead of parsing (a size limit)           → send
 *   ├─ parse ── response ─────────────────────→ outgoing table (pending.ts): settle, or report
 *   │        ├─ cancel notice ────────────────→ incoming table (incoming.ts): abort; answer or not
 *   │        ├─ progress notice ──────────────→ the onProgress of the outgoing call with that token
 *   │        └─ request / notification / batch → dispatch (handlers.ts, or the server's dispatcher)
 *   │                                              its answer (now or later) → send
 * request(method, params) ── outgoing.ts: id, pending table (timeout, abort, give-up → cancel
 *                            notice) ─────────────────────────────────────────────────────────→ send
 * notify(method, params) ─────────────────────────────────────────────────────────────────→ send
 * close / transport onClose ── reject outgoing, abort incoming, resolve `closed`
 * transport onDisconnect ───── reject outgoing ("Connection lost"); incoming keep running
 * transport onEnd (input ended) reject outgoing; close once the incoming calls have answered
 * ```
 *
 * @module
 */
import type { CallContext } from './call-context.js';
import type { RequestOptions } from './endpoint.js';
import type { MessageEnvelope } from './envelope.js';
import { ConnectionClosedError, fromErrorObject, RequestTooLargeError } from './errors.js';
import { createIncomingCalls, type IncomingCall, type IncomingCalls } from './incoming.js';
import type {
  JsonRpcErrorObject,
  JsonRpcId,
  JsonRpcNotification,
  JsonRpcParams,
  JsonRpcResponse,
} from './messages.js';
import { createOutgoing, type Outgoing } from './outgoing.js';
import type { ParseResult } from './parse.js';
import { parse } from './parse.js';
import type { GiveUpReason, PendingCalls } from './pending.js';
import type { Profile, ProgressReporter } from './protocols.js';
import type { ErrorInfo, ErrorKind, ErrorLevel } from './report.js';
import { sendError } from './send-error.js';
import { type SendWatch, watchSends } from './send-watch.js';
import { serializeNotification, serializeRequest } from './serialize.js';
import { toError } from './to-error.js';
import { SENT, type Transport, type TransportHandler } from './transport.js';

/** What a dispatch answers with: the text to send, `undefined` for nothing, or a promise of either. */
export type SessionAnswer = string | undefined | Promise<string | undefined>;

/**
 * Answers one parsed message (not a lone response, not a cancel or progress notice). Called on
 * the session's options (`this`), so that an owner whose options object is one per conversation
 * (a server's connection) can pass one function shared by all of them instead of a closure each.
 */
export type SessionDispatch = (
  this: SessionOptions,
  parsed: ParseResult,
  text: string,
) => SessionAnswer;

/** Options of {@link createSession}. */
export interface SessionOptions {
  /**
   * Cancellation and progress on the wire; `undefined` turns both off.
   * @default undefined
   */
  readonly profile?: Profile<any> | undefined;
  /** Sends the profile's cancel notice when an outgoing call times out or is aborted. @default false */
  readonly sendCancel?: boolean | undefined;
  /** Default timeout of outgoing calls, in milliseconds; `0` waits forever. @default 0 */
  readonly callTimeout?: number | undefined;
  /**
   * When `callTimeout` is not set: the deadline of a call with no timeout of its own, a safety
   * net that fails the call but leaves its send alone (no send signal, no controller or timer per
   * call): checked every tenth of it, so such a call fails 1 to 1.1 times this after it started.
   * @default 0 (none)
   */
  readonly fallbackTimeout?: number | undefined;
  /** Writes an outgoing call (a codec, JSON-RPC 1.0, local checks). @default core's `serializeRequest` */
  readonly serializeRequest?:
    | ((id: JsonRpcId, method: string, params: JsonRpcParams | undefined) => string)
    | undefined;
  /** Writes an outgoing notification. @default core's `serializeNotification` */
  readonly serializeNotification?:
    | ((method: string, params: JsonRpcParams | undefined) => string)
    | undefined;
  /** How many ids of calls that gave up are remembered, to drop their late answers quietly. @default 1024 */
  readonly lateAnswerMemory?: number | undefined;
  /**
   * The params member that carries the context (`deadline`, `meta`) of outgoing calls on a
   * transport that does not carry it itself.
   * @default DEFAULT_CONTEXT_MEMBER ("_meta")
   */
  readonly contextMember?: string | undefined;
  /** Makes the ids of outgoing calls. @default 1, 2, 3… */
  readonly generateId?: (() => JsonRpcId) | undefined;
  /**
   * Looks at a text before it is parsed (a size limit): `true` when it took care of it (refused
   * it), `false` to go on.
   */
  readonly screen?: ((text: string) => boolean) | undefined;
  /** Parses a text. @default core's `parse` */
  readonly parse?: ((text: string) => ParseResult) | undefined;
  /** Passed to the transport: a message over its size limit, dropped unparsed. */
  readonly onTooLarge?: ((envelope: MessageEnvelope, error: Error) => void) | undefined;
  /** Passed to the transport: the owner's own size limit, for a transport without one. */
  readonly maxMessageBytes?: number | undefined;
  /** Told when a call left the outgoing table by an answer (or a malformed one). */
  readonly onAnswered?: ((id: JsonRpcId) => void) | undefined;
  /**
   * Takes an error answer with id `null` (the other side could not read the request), to find
   * the call(s) it belongs to; `hint` is what the dispatch learned from the batch it came in
   * (see `HandlerDispatchOptions.batchHint`). By default it is reported.
   */
  readonly onNullIdError?:
    | ((error: JsonRpcErrorObject, hint: unknown, received: unknown) => void)
    | undefined;
  /** What the session does when it closes: the abort reason of the calls still running here. */
  readonly closeReason?: ((cause: unknown) => unknown) | undefined;
  /** Where events nobody waits on go. */
  readonly report: (error: Error, info: ErrorInfo) => void;
  /** Called once when the session closes, for whatever reason. */
  readonly onClose?: ((reason: unknown) => void) | undefined;
  /** Called after the transport reconnected (subscriptions are made again here). */
  readonly onReconnect?: (() => void) | undefined;
}

/** One duplex conversation. See {@link createSession}. */
export interface Session {
  /** The calls this side made that wait for their answers. */
  readonly pending: PendingCalls;
  /** The calls the other side made that run here. */
  readonly incoming: IncomingCalls;
  /** The profile in use, or `undefined`. */
  readonly profile: Profile<any> | undefined;
  /** Aborted when the session closes. */
  readonly signal: AbortSignal;
  /** Whether the session has closed. */
  readonly isClosed: boolean;
  /** Resolves when the session has closed. */
  readonly closed: Promise<void>;
  /**
   * Starts the transport; every message from then on goes to `dispatch`.
   *
   * @param dispatch - answers requests, notifications and batches
   */
  start(dispatch: SessionDispatch): void;
  /**
   * Sends a text, after the transport started, in call order.
   *
   * @param text - a serialized message or batch
   * @param signal - aborts the send
   * @returns resolves once the transport took it
   */
  send(text: string, signal?: AbortSignal): Promise<void>;
  /**
   * The transport itself once {@link Session.send} hands texts straight to it (started, nothing
   * waiting for the start, not closed), else `undefined`. A sender of many texts to one
   * connection (a subscription's items) calls its `send()` without the session's hop, in the same
   * order as the session's own sends. Optional: a session that never sends straight leaves it out.
   */
  readonly directTransport?: Transport | undefined;
  /**
   * Sends an answer or a notice nobody waits on; failures are reported.
   *
   * @param text - the text
   * @param about - the request it answers (named when a failure is reported)
   */
  sendDetached(text: string, about?: { readonly method: string; readonly id?: JsonRpcId }): void;
  /**
   * Takes a response: settles the waiting call; an id-null error goes to `onNullIdError`; an
   * answer nobody waits for is reported (unless its call gave up).
   *
   * @param response - the response
   * @param hint - for an id-null error: what the batch it came in tells about its call(s)
   */
  respond(response: JsonRpcResponse, hint?: unknown): void;
  /**
   * Rejects a waiting call because its answer was malformed.
   *
   * @param id - the call's id
   * @param error - the rejection
   */
  reject(id: JsonRpcId, error: Error): void;
  /**
   * Applies a notification meant for the session itself (the profile's cancel or progress).
   *
   * @param notification - the notification
   * @returns `true` when it was one (and was applied)
   */
  consume(notification: JsonRpcNotification): boolean;
  /**
   * The progress reporter of an incoming request, when its params carry the profile's token.
   *
   * @param params - the request's params
   * @param open - whether the call still runs (reports after the answer are dropped)
   * @returns the reporter, or `undefined`
   */
  progressFor(params: unknown, open: () => boolean): ProgressReporter<any> | undefined;
  /**
   * Whether an id belongs to a call that gave up (its late answer is expected, not reported).
   *
   * @param id - the id
   * @returns `true` when a call with that id gave up recently
   */
  gaveUp(id: JsonRpcId): boolean;
  /**
   * Makes the next id of an outgoing call.
   *
   * @returns the id
   */
  nextId(): JsonRpcId;
  /**
   * What an outgoing call does when it gives up: remembers the id and sends the cancel notice.
   *
   * @param reason - timeout or abort
   * @param id - the call's id
   * @param method - its method
   * @param cause - the abort signal's reason, when aborted: the cancel notice carries it where
   *   the profile has a field for it (MCP's `reason`)
   * @param notice - `false` when the call never went out (nothing to cancel) @default true
   */
  onGiveUp(
    reason: GiveUpReason,
    id: JsonRpcId,
    method: string,
    cause?: unknown,
    notice?: boolean,
  ): void;
  /**
   * Calls the other side and waits for the answer.
   *
   * @param method - the method
   * @param params - the params
   * @param options - signal, timeout, onProgress
   * @param id - the id to use (from {@link Session.nextId}); a new one by default
   * @returns the result
   * @throws (rejects) the wire error, TimeoutError, AbortError, ConnectionClosedError, TransportError
   */
  request(
    method: string,
    params?: JsonRpcParams,
    options?: RequestOptions,
    id?: JsonRpcId,
  ): Promise<unknown>;
  /**
   * Sends a notification.
   *
   * @param method - the method
   * @param params - the params
   * @returns resolves once the transport took it
   */
  notify(method: string, params?: JsonRpcParams): Promise<void>;
  /**
   * Closes the session and its transport. Idempotent.
   *
   * @param reason - why, passed to the transport
   * @returns resolves once closed
   */
  close(reason?: unknown): Promise<void>;
}

const send = (kind: ErrorKind, level: ErrorLevel): ErrorInfo => ({ kind, level });
const TRANSPORT_WARN: ErrorInfo = Object.freeze(send('transport-error', 'warn'));
const TRANSPORT_FAILED: ErrorInfo = Object.freeze(send('transport-error', 'error'));
const TOO_LARGE: ErrorInfo = Object.freeze(send('message-too-large', 'warn'));

/**
 * How a transport's non-fatal error is reported: a message the transport refused unread for its
 * size (a `RequestTooLargeError`, say a WebSocket message over what `ws` reads) is
 * `message-too-large`, anything else `transport-error`.
 */
const transportErrorInfo = (error: Error): ErrorInfo =>
  error instanceof RequestTooLargeError ? TOO_LARGE : TRANSPORT_WARN;

/** The promise of a start that has resolved, and of a session closed before anyone asked. */
const DONE: Promise<void> = Promise.resolve();

/**
 * Creates a session over a transport (not started yet: see {@link Session.start}).
 *
 * @param transport - the transport, not yet started: the session becomes its only owner
 * @param options - profile, timeouts, ids and hooks
 * @returns the session
 * @example
 * ```ts
 * const [a, b] = createMemoryTransportPair();
 * const session = createSession(a, { report: console.warn });
 * session.start(() => undefined);
 * ```
 */
export function createSession(transport: Transport, options: SessionOptions): Session {
  return options.onTooLarge === undefined
    ? new SessionImpl(transport, options)
    : new TooLargeTakingSession(transport, options);
}

/** The session has closed. */
const CLOSED = 1;
/** The transport's start resolved and no send waits for it: sends go straight to it. */
const STARTED = 2;
/** The other side ended its input. */
const INPUT_ENDED = 4;

/**
 * What a session holds only once it is used for more than answering at once: its own calls, an
 * answer worked out later, its signal or `closed` read, or its close. Made on first use, so that
 * an idle session (a server holds one per connection) is one small object.
 */
interface SessionExtras {
  /** The peer's calls running here, for cancellation. */
  incoming?: IncomingCalls<IncomingCall>;
  /** This side's calls: their ids, timeouts and pending table. */
  outgoing?: Outgoing;
  /** Answers still being worked out. */
  running?: number;
  /** The session's signal, once read. */
  life?: AbortController;
  /** Why the session closed: the reason of its signal and of the calls still running here. */
  closeReason?: unknown;
  /** `closed`, once read before the session closed. */
  closedPromise?: Promise<void>;
  resolveClosed?: () => void;
}

/**
 * A session's start while sends wait for it: the promise they follow (so each runs in its
 * caller's async context, in call order), how many still wait, and whether the start resolved.
 */
interface StartWait {
  promise: Promise<void>;
  waiting: number;
  resolved: boolean;
}

/**
 * The starts of the sessions whose sends do not go straight to their transports yet: a table
 * beside the sessions, since a session needs its entry for a moment at most.
 */
const startWaits = new WeakMap<object, StartWait>();

/** A session's entry in {@link startWaits}, made now if it had none. */
function startWaitOf(session: object): StartWait {
  let wait = startWaits.get(session);
  if (wait === undefined)
    startWaits.set(session, (wait = { promise: DONE, waiting: 0, resolved: false }));
  return wait;
}

/** What a detached send is about: the call it answers or makes. */
type SendAbout = { readonly method: string; readonly id?: JsonRpcId };

/** Reports a detached send that failed; the session goes on (the transport closes if it must). */
function reportDetachedFailure(
  error: unknown,
  options: SessionOptions,
  about: SendAbout | undefined,
): void {
  const level = error instanceof ConnectionClosedError ? 'debug' : 'warn';
  options.report(
    toError(error),
    about === undefined
      ? { kind: 'send-failed', level }
      : about.id === undefined
        ? { kind: 'send-failed', level, method: about.method }
        : { kind: 'send-failed', level, method: about.method, id: about.id },
  );
}

/**
 * The watch of every session's detached sends (answers, notices): one for all, so that a session
 * holds nothing for it; each send carries its session's options.
 */
const watchDetached: SendWatch<SessionOptions, SendAbout | undefined> =
  watchSends(reportDetachedFailure);

/**
 * One session. A class rather than closures over a scope: a server holds one session per
 * connection, and here its behaviour lives once on the prototype while each session holds only
 * its fields. The tables, the signal, the `closed` promise and the outgoing half are made on
 * first use: most connections never call back, run a slow handler, or are awaited.
 */
class SessionImpl implements Session {
  readonly #transport: Transport;
  readonly #options: SessionOptions;
  /** {@link CLOSED}, {@link STARTED}, {@link INPUT_ENDED}. */
  #flags = 0;
  #dispatch: SessionDispatch | undefined;
  /** What an idle session does not hold (see {@link SessionExtras}). */
  #extras: SessionExtras | undefined;

  constructor(transport: Transport, options: SessionOptions) {
    this.#transport = transport;
    this.#options = options;
  }

  get profile(): Profile<any> | undefined {
    return this.#options.profile;
  }

  get pending(): PendingCalls {
    return SessionImpl.#outgoingOf(this).pending;
  }

  get incoming(): IncomingCalls<IncomingCall> {
    const extras = (this.#extras ??= {});
    return (extras.incoming ??= createIncomingCalls<IncomingCall>());
  }

  get signal(): AbortSignal {
    const extras = (this.#extras ??= {});
    if (extras.life === undefined) {
      extras.life = new AbortController();
      if (this.isClosed) extras.life.abort(extras.closeReason);
    }
    return extras.life.signal;
  }

  get isClosed(): boolean {
    return (this.#flags & CLOSED) !== 0;
  }

  get closed(): Promise<void> {
    if (this.isClosed) return DONE;
    const extras = (this.#extras ??= {});
    extras.closedPromise ??= new Promise<void>((resolve) => {
      extras.resolveClosed = resolve;
    });
    return extras.closedPromise;
  }

  get directTransport(): Transport | undefined {
    return (this.#flags & (STARTED | CLOSED)) === STARTED ? this.#transport : undefined;
  }

  send(text: string, signal?: AbortSignal, callContext?: CallContext): Promise<void> {
    const transport = this.#transport;
    const sendOptions =
      signal === undefined && callContext === undefined ? undefined : { signal, callContext };
    if (this.#flags & STARTED) {
      try {
        return transport.send(text, sendOptions);
      } catch (error) {
        return Promise.reject(error);
      }
    }
    if (this.isClosed) return Promise.reject(new ConnectionClosedError());
    // Before the start has resolved, or while sends made before still wait: after them.
    const wait = startWaitOf(this);
    wait.waiting++;
    return wait.promise.then(() => {
      if (--wait.waiting === 0 && wait.resolved) SessionImpl.#sendStraight(this);
      return this.isClosed
        ? Promise.reject(new ConnectionClosedError())
        : transport.send(text, sendOptions);
    });
  }

  /** From now on sends go straight to the transport. */
  static #sendStraight(session: SessionImpl): void {
    startWaits.delete(session);
    session.#flags |= STARTED;
  }

  sendDetached(text: string, about?: SendAbout): void {
    if (this.isClosed) return;
    const sent = this.send(text);
    if (sent !== SENT) watchDetached(sent, this.#options, about);
  }

  /**
   * A session's outgoing half, made on first use. Static, as every private method here: an
   * instance's private method would give each session a hidden field (its class brand).
   */
  static #outgoingOf(session: SessionImpl): Outgoing {
    const extras = (session.#extras ??= {});
    if (extras.outgoing !== undefined) return extras.outgoing;
    const options = session.#options;
    extras.outgoing = createOutgoing({
      profile: session.profile,
      sendCancel: options.sendCancel === true,
      callTimeout: options.callTimeout ?? 0,
      fallbackTimeout: options.callTimeout === undefined ? (options.fallbackTimeout ?? 0) : 0,
      serializeRequest: options.serializeRequest ?? serializeRequest,
      serializeNotification: options.serializeNotification ?? serializeNotification,
      lateAnswerMemory: options.lateAnswerMemory,
      generateId: options.generateId,
      contextMember: options.contextMember,
      carriesContext: session.#transport.carriesCallContext,
      onAnswered: options.onAnswered,
      onNullIdError: options.onNullIdError,
      report: (error, info) => options.report(error, info),
      send: (text, signal, callContext) => session.send(text, signal, callContext),
      sendDetached: (text) => session.sendDetached(text),
      isClosed: () => session.isClosed,
    });
    return extras.outgoing;
  }

  respond(response: JsonRpcResponse, hint?: unknown): void {
    SessionImpl.#outgoingOf(this).respond(response, hint);
  }

  reject(id: JsonRpcId, error: Error): void {
    SessionImpl.#outgoingOf(this).reject(id, error);
  }

  gaveUp(id: JsonRpcId): boolean {
    return SessionImpl.#outgoingOf(this).gaveUp(id);
  }

  nextId(): JsonRpcId {
    return SessionImpl.#outgoingOf(this).nextId();
  }

  onGiveUp(
    reason: GiveUpReason,
    id: JsonRpcId,
    method: string,
    cause?: unknown,
    notice?: boolean,
  ): void {
    SessionImpl.#outgoingOf(this).onGiveUp(reason, id, method, cause, notice);
  }

  request(
    method: string,
    params?: JsonRpcParams,
    options?: RequestOptions,
    id?: JsonRpcId,
  ): Promise<unknown> {
    return SessionImpl.#outgoingOf(this).request(method, params, options, id);
  }

  consume(notification: JsonRpcNotification): boolean {
    const cancellation = this.profile?.cancellation;
    if (notification.method !== cancellation?.method) {
      return this.#extras?.outgoing?.progress(notification) === true;
    }
    const table = this.#extras?.incoming;
    if (table === undefined || table.size === 0) return true;
    let id: JsonRpcId | undefined;
    try {
      id = cancellation!.fromParams(notification.params);
    } catch (error) {
      this.#options.report(toError(error), {
        kind: 'invalid-message',
        level: 'warn',
        method: notification.method,
      });
      return true;
    }
    if (id !== undefined) {
      const reason = cancellation!.reasonOf?.(notification.params);
      const cancelled = fromErrorObject(
        reason === undefined
          ? { code: cancellation!.code, message: 'Request cancelled' }
          : { code: cancellation!.code, message: `Request cancelled: ${reason}`, data: { reason } },
        { id },
      );
      table.cancel(id, cancelled, cancellation!.answer !== false);
    }
    return true;
  }

  progressFor(params: unknown, open: () => boolean): ProgressReporter<any> | undefined {
    const progress = this.profile?.progress;
    if (progress === undefined || params === undefined || params === null) return undefined;
    const token = progress.tokenOf(params);
    if (token === undefined) return undefined;
    return (value: unknown) =>
      open() && !this.isClosed
        ? this.notify(progress.method, progress.toParams(token, value))
        : Promise.resolve();
  }

  notify(method: string, params?: JsonRpcParams): Promise<void> {
    if (this.isClosed) return Promise.reject(new ConnectionClosedError(undefined, { method }));
    let text: string;
    try {
      text = (this.#options.serializeNotification ?? serializeNotification)(method, params);
    } catch (error) {
      return Promise.reject(error);
    }
    return this.send(text).then(undefined, (error: unknown) => {
      throw sendError(error, { method });
    });
  }

  /** Closes the session for whatever reason (not the transport: the caller sees to that). */
  shutdown(cause: unknown): void {
    if (this.isClosed) return;
    this.#flags |= CLOSED;
    const extras = (this.#extras ??= {});
    extras.outgoing?.close(cause);
    const options = this.#options;
    const closeReason =
      options.closeReason !== undefined
        ? options.closeReason(cause)
        : new ConnectionClosedError(undefined, cause === undefined ? undefined : { cause });
    extras.closeReason = closeReason;
    extras.life?.abort(closeReason);
    extras.incoming?.closeAll(closeReason);
    options.onClose?.(cause);
    extras.resolveClosed?.();
  }

  close(reason?: unknown): Promise<void> {
    if (this.isClosed) return this.closed;
    this.shutdown(reason);
    let closing: Promise<void>;
    try {
      closing = this.#transport.close(reason);
    } catch (error) {
      closing = Promise.reject(error);
    }
    return closing.then(
      () => this.closed,
      (error: unknown) => {
        this.#options.report(toError(error), TRANSPORT_WARN);
        return this.closed;
      },
    );
  }

  /** One answer worked out: the session closes after the last one once its input ended. */
  static #answered(session: SessionImpl): void {
    if (--session.#extras!.running! === 0 && session.#flags & INPUT_ENDED) void session.close();
  }

  /** Nothing more will arrive: calls waiting for answers cannot get them; calls running here
   * still answer, and the session closes after the last one. */
  inputEnded(): void {
    this.#flags |= INPUT_ENDED;
    this.#extras?.outgoing?.failAll('The other side ended its input', undefined);
    if (!this.#extras?.running) void this.close();
  }

  /** The connection was lost (the transport may reconnect): calls waiting for answers fail. */
  disconnected(error?: Error): void {
    this.#extras?.outgoing?.failAll('Connection lost', error);
  }

  /** Reads a session's options: for {@link TooLargeTakingSession}, outside the class. */
  static optionsOf(session: SessionImpl): SessionOptions {
    return session.#options;
  }

  // The session is the handler of a transport that calls the handler's members as methods (see
  // `sessionHandler`): no object of its own per session.

  onMessage(text: string): void {
    this.received(text);
  }

  /** The parser of this session's messages: its options' `parse`, else core's. */
  get parse(): (text: string) => ParseResult {
    return this.#options.parse ?? parse;
  }

  onParsed(parsed: ParseResult, text: string): void {
    this.received(text, parsed);
  }

  onClose(error?: Error): void {
    this.shutdown(error);
  }

  onError(error: Error): void {
    this.#options.report(error, transportErrorInfo(error));
  }

  onDisconnect(error?: Error): void {
    this.disconnected(error);
  }

  onEnd(): void {
    this.inputEnded();
  }

  get maxMessageBytes(): number | undefined {
    return this.#options.maxMessageBytes;
  }

  /**
   * Takes one inbound text.
   *
   * @param text - the message or batch
   * @param given - what {@link SessionImpl.parse} made of `text`, when the transport parsed it
   */
  received(text: string, given?: ParseResult): void {
    if (this.isClosed) return;
    const options = this.#options;
    if (options.screen?.(text)) return;
    const parsed = given ?? (options.parse ?? parse)(text);
    if (parsed.kind === 'response') {
      this.respond(parsed.message);
      return;
    }
    if (parsed.kind === 'notification' && this.consume(parsed.message)) return;
    const out = this.#dispatch!.call(this.#options, parsed, text);
    if (out === undefined) return;
    const about = parsed.kind === 'request' ? parsed.message : undefined;
    if (typeof out === 'string') this.sendDetached(out, about);
    else {
      const extras = (this.#extras ??= {});
      extras.running = (extras.running ?? 0) + 1;
      out.then((answer) => {
        if (answer !== undefined) this.sendDetached(answer, about);
        SessionImpl.#answered(this);
      });
    }
  }

  start(dispatch: SessionDispatch): void {
    this.#dispatch = dispatch;
    const options = this.#options;
    try {
      const transport = this.#transport;
      const wait = startWaitOf(this);
      wait.promise = transport.start(sessionHandler(this, options, transport)).then(
        () => {
          wait.resolved = true;
          if (wait.waiting === 0) SessionImpl.#sendStraight(this);
        },
        (error: unknown) => {
          options.report(toError(error), TRANSPORT_FAILED);
          this.shutdown(error);
        },
      );
    } catch (error) {
      options.report(toError(error), TRANSPORT_FAILED);
      this.shutdown(error);
    }
  }
}

/**
 * What a session hands its transport: a plain object whose members are its own, so that a
 * transport (or a wrapper) may copy it (`{ ...handler, onMessage }`) or take a member off it; or,
 * for a transport that calls its members only as methods ({@link Transport.callsHandlerMethods}),
 * the session itself, whose behaviour is on its prototype (a server holds one per connection).
 * The optional `onTooLarge` and `onReconnect` are members only when the session has them, so that
 * a transport that checks for them behaves as before: a session whose owner takes messages over
 * the size limit is a {@link TooLargeTakingSession}, and one whose owner listens for reconnections
 * hands the plain object.
 *
 * @param session - the session
 * @param options - its options
 * @param transport - its transport
 * @returns the handler
 */
function sessionHandler(
  session: SessionImpl,
  options: SessionOptions,
  transport: Transport,
): TransportHandler {
  if (transport.callsHandlerMethods === true && options.onReconnect === undefined) return session;
  const handler: { -readonly [K in keyof TransportHandler]: TransportHandler[K] } = {
    onMessage: (text) => session.received(text),
    onClose: (error) => session.shutdown(error),
    onError: (error) => options.report(error, transportErrorInfo(error)),
    onDisconnect: (error) => session.disconnected(error),
    onEnd: () => session.inputEnded(),
  };
  // A member (a closure) only for an owner that listens: a server's connection does not.
  if (options.onReconnect !== undefined) handler.onReconnect = () => options.onReconnect!();
  if (options.onTooLarge !== undefined) {
    // Called on the options: the owner's hooks may be methods of one object.
    handler.onTooLarge = (envelope, error) => options.onTooLarge!(envelope, error);
  }
  if (options.maxMessageBytes !== undefined) handler.maxMessageBytes = options.maxMessageBytes;
  return handler;
}

/** A session whose owner takes messages over the size limit: as a handler, it has `onTooLarge`. */
class TooLargeTakingSession extends SessionImpl {
  onTooLarge(envelope: MessageEnvelope, error: Error): void {
    // Called on the options: the owner's hooks may be methods of one object.
    SessionImpl.optionsOf(this).onTooLarge!(envelope, error);
  }
}
