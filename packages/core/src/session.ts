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
import type { RequestOptions } from './endpoint.js';
import type { MessageEnvelope } from './envelope.js';
import { ConnectionClosedError, fromErrorObject } from './errors.js';
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
import { serializeNotification } from './serialize.js';
import { toError } from './to-error.js';
import { SENT, type Transport } from './transport.js';

/** What a dispatch answers with: the text to send, `undefined` for nothing, or a promise of either. */
export type SessionAnswer = string | undefined | Promise<string | undefined>;

/** Answers one parsed message (not a lone response, not a cancel or progress notice). */
export type SessionDispatch = (parsed: ParseResult, text: string) => SessionAnswer;

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
  readonly requestTimeout?: number | undefined;
  /** How many ids of calls that gave up are remembered, to drop their late answers quietly. @default 1024 */
  readonly lateAnswerMemory?: number | undefined;
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
   * @param notice - `false` when the call never went out (nothing to cancel) @default true
   */
  onGiveUp(reason: GiveUpReason, id: JsonRpcId, method: string, notice?: boolean): void;
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

/** What the face of a {@link Session} reads live, each through a function. */
interface SessionReaders {
  readonly outgoing: () => Outgoing;
  readonly incoming: () => IncomingCalls;
  readonly signal: () => AbortSignal;
  readonly isClosed: () => boolean;
}

/** The members of a {@link Session} that are plain values. */
type SessionMembers = Omit<
  Session,
  | 'pending'
  | 'incoming'
  | 'signal'
  | 'isClosed'
  | 'reject'
  | 'gaveUp'
  | 'nextId'
  | 'onGiveUp'
  | 'request'
>;

/**
 * The session as its users see it. A class rather than an object literal: V8 keeps a literal
 * with getters and this many members in its slow dictionary form (about 850 bytes, once per
 * connection of a server); here the getters live once on the prototype.
 */
class SessionFace implements Session {
  declare readonly profile: Profile<any> | undefined;
  declare readonly closed: Promise<void>;
  declare readonly start: Session['start'];
  declare readonly send: Session['send'];
  declare readonly sendDetached: Session['sendDetached'];
  declare readonly respond: Session['respond'];
  declare readonly consume: Session['consume'];
  declare readonly progressFor: Session['progressFor'];
  declare readonly notify: Session['notify'];
  declare readonly close: Session['close'];
  readonly #read: SessionReaders;

  constructor(members: SessionMembers, read: SessionReaders) {
    this.#read = read;
    Object.assign(this, members);
  }

  get pending(): PendingCalls {
    return this.#read.outgoing().pending;
  }

  get incoming(): IncomingCalls {
    return this.#read.incoming();
  }

  get signal(): AbortSignal {
    return this.#read.signal();
  }

  get isClosed(): boolean {
    return this.#read.isClosed();
  }

  reject(id: JsonRpcId, error: Error): void {
    this.#read.outgoing().reject(id, error);
  }

  gaveUp(id: JsonRpcId): boolean {
    return this.#read.outgoing().gaveUp(id);
  }

  nextId(): JsonRpcId {
    return this.#read.outgoing().nextId();
  }

  onGiveUp(reason: GiveUpReason, id: JsonRpcId, method: string, notice?: boolean): void {
    this.#read.outgoing().onGiveUp(reason, id, method, notice);
  }

  request(
    method: string,
    params?: JsonRpcParams,
    options?: RequestOptions,
    id?: JsonRpcId,
  ): Promise<unknown> {
    return this.#read.outgoing().request(method, params, options, id);
  }
}

const send = (kind: ErrorKind, level: ErrorLevel): ErrorInfo => ({ kind, level });
const TRANSPORT_WARN: ErrorInfo = Object.freeze(send('transport-error', 'warn'));
const TRANSPORT_FAILED: ErrorInfo = Object.freeze(send('transport-error', 'error'));

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
  const { report, profile, screen } = options;
  const parseText = options.parse ?? parse;
  // The tables, the signal and the outgoing half are made on first use: a server holds one
  // session per connection, and most connections never call back or run a slow handler.
  let incomingTable: IncomingCalls<IncomingCall> | undefined;
  const incoming = (): IncomingCalls<IncomingCall> =>
    (incomingTable ??= createIncomingCalls<IncomingCall>());
  const cancellation = profile?.cancellation;
  const progress = profile?.progress;
  const cancelMethod = cancellation?.method;
  const cancelAnswers = cancellation?.answer !== false;
  let life: AbortController | undefined;
  /** Why the session closed: the reason of its signal and of the calls still running here. */
  let closeReason: unknown;
  let closed = false;
  let started = false;
  let deferredSends = 0;
  let startPromise: Promise<void> = Promise.resolve();
  let resolveClosed!: () => void;
  const closedPromise = new Promise<void>((resolve) => {
    resolveClosed = resolve;
  });

  const sendText = (text: string, signal?: AbortSignal): Promise<void> => {
    const sendOptions = signal === undefined ? undefined : { signal };
    if (started && deferredSends === 0) {
      try {
        return transport.send(text, sendOptions);
      } catch (error) {
        return Promise.reject(error);
      }
    }
    // Before start has resolved: wait for it, keeping the order of every send made meanwhile.
    deferredSends++;
    return startPromise.then(() => {
      deferredSends--;
      return closed
        ? Promise.reject(new ConnectionClosedError())
        : transport.send(text, sendOptions);
    });
  };

  const sendDetached = (text: string, about?: { method: string; id?: JsonRpcId }): void => {
    if (closed) return;
    const sent = sendText(text);
    if (sent === SENT) return;
    sent.then(undefined, (error: unknown) => {
      const level = error instanceof ConnectionClosedError ? 'debug' : 'warn';
      report(
        toError(error),
        about === undefined
          ? { kind: 'send-failed', level }
          : about.id === undefined
            ? { kind: 'send-failed', level, method: about.method }
            : { kind: 'send-failed', level, method: about.method, id: about.id },
      );
    });
  };

  let outgoingHalf: Outgoing | undefined;
  const outgoing = (): Outgoing =>
    (outgoingHalf ??= createOutgoing({
      profile,
      sendCancel: options.sendCancel === true,
      requestTimeout: options.requestTimeout ?? 0,
      lateAnswerMemory: options.lateAnswerMemory,
      generateId: options.generateId,
      onAnswered: options.onAnswered,
      onNullIdError: options.onNullIdError,
      report,
      send: sendText,
      sendDetached,
      isClosed: () => closed,
    }));
  const respond = (response: JsonRpcResponse, hint?: unknown): void =>
    outgoing().respond(response, hint);

  const cancelled = (id: JsonRpcId): Error =>
    fromErrorObject({ code: cancellation!.code, message: 'Request cancelled' }, { id });

  const consume = (notification: JsonRpcNotification): boolean => {
    if (notification.method !== cancelMethod) {
      return outgoingHalf?.progress(notification) === true;
    }
    if (incomingTable === undefined || incomingTable.size === 0) return true;
    let id: JsonRpcId | undefined;
    try {
      id = cancellation!.fromParams(notification.params);
    } catch (error) {
      report(toError(error), {
        kind: 'invalid-message',
        level: 'warn',
        method: notification.method,
      });
      return true;
    }
    if (id !== undefined) incomingTable.cancel(id, cancelled(id), cancelAnswers);
    return true;
  };

  const progressFor = (params: unknown, open: () => boolean): ProgressReporter<any> | undefined => {
    if (progress === undefined || params === undefined || params === null) return undefined;
    const token = progress.tokenOf(params);
    if (token === undefined) return undefined;
    return (value: unknown) =>
      open() && !closed
        ? session.notify(progress.method, progress.toParams(token, value))
        : Promise.resolve();
  };

  const notify = (method: string, params?: JsonRpcParams): Promise<void> => {
    if (closed) return Promise.reject(new ConnectionClosedError(undefined, { method }));
    let text: string;
    try {
      text = serializeNotification(method, params);
    } catch (error) {
      return Promise.reject(error);
    }
    return sendText(text).then(undefined, (error: unknown) => {
      throw sendError(error, { method });
    });
  };

  const shutdown = (cause: unknown): void => {
    if (closed) return;
    closed = true;
    outgoingHalf?.close(cause);
    closeReason =
      options.closeReason !== undefined
        ? options.closeReason(cause)
        : new ConnectionClosedError(undefined, cause === undefined ? undefined : { cause });
    life?.abort(closeReason);
    incomingTable?.closeAll(closeReason);
    options.onClose?.(cause);
    resolveClosed();
  };

  const close = (reason?: unknown): Promise<void> => {
    if (closed) return closedPromise;
    shutdown(reason);
    let closing: Promise<void>;
    try {
      closing = transport.close(reason);
    } catch (error) {
      closing = Promise.reject(error);
    }
    return closing.then(
      () => closedPromise,
      (error: unknown) => {
        report(toError(error), TRANSPORT_WARN);
        return closedPromise;
      },
    );
  };

  /** Answers still being worked out, and whether the other side ended its input. */
  let running = 0;
  let inputEnded = false;
  const answered = (): void => {
    if (--running === 0 && inputEnded) void close();
  };
  const onEnd = (): void => {
    // Nothing more will arrive: calls waiting for answers cannot get them; calls running here
    // still answer, and the session closes after the last one.
    inputEnded = true;
    outgoingHalf?.failAll('The other side ended its input', undefined);
    if (running === 0) void close();
  };

  const start = (dispatch: SessionDispatch): void => {
    const onMessage = (text: string): void => {
      if (closed) return;
      if (screen?.(text)) return;
      const parsed = parseText(text);
      if (parsed.kind === 'response') {
        respond(parsed.message);
        return;
      }
      if (parsed.kind === 'notification' && consume(parsed.message)) return;
      const out = dispatch(parsed, text);
      if (out === undefined) return;
      const about = parsed.kind === 'request' ? parsed.message : undefined;
      if (typeof out === 'string') sendDetached(out, about);
      else {
        running++;
        out.then((answer) => {
          if (answer !== undefined) sendDetached(answer, about);
          answered();
        });
      }
    };
    try {
      startPromise = transport
        .start({
          onMessage,
          ...(options.onTooLarge === undefined ? {} : { onTooLarge: options.onTooLarge }),
          ...(options.maxMessageBytes === undefined
            ? {}
            : { maxMessageBytes: options.maxMessageBytes }),
          onClose: (error?: Error) => shutdown(error),
          onError: (error: Error) => report(error, TRANSPORT_WARN),
          onDisconnect: (error?: Error) => outgoingHalf?.failAll('Connection lost', error),
          onReconnect: () => options.onReconnect?.(),
          onEnd,
        })
        .then(
          () => {
            started = true;
          },
          (error: unknown) => {
            report(toError(error), TRANSPORT_FAILED);
            shutdown(error);
          },
        );
    } catch (error) {
      report(toError(error), TRANSPORT_FAILED);
      shutdown(error);
    }
  };

  const session: Session = new SessionFace(
    {
      profile,
      closed: closedPromise,
      start,
      send: sendText,
      sendDetached,
      respond,
      consume,
      progressFor,
      notify,
      close,
    },
    {
      outgoing,
      incoming,
      signal: () => {
        if (life === undefined) {
          life = new AbortController();
          if (closed) life.abort(closeReason);
        }
        return life.signal;
      },
      isClosed: () => closed,
    },
  );
  return session;
}
