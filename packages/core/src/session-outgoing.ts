/**
 * The half of a session that sends: its texts (in call order, after the transport started), its
 * calls and batches out through its outgoing half (outgoing.ts, made on first use), the answers
 * to them, and the notices meant for it. The lifecycle (start, what arrives, close) is the
 * subclass in session.ts.
 *
 * @module
 */
import type { CallContext } from './call-context.js';
import type { RequestOptions } from './endpoint.js';
import { ConnectionClosedError } from './errors.js';
import type { IncomingCall, IncomingCalls } from './incoming.js';
import type { JsonRpcId, JsonRpcNotification, JsonRpcParams, JsonRpcResponse } from './messages.js';
import { createOutgoing, type Outgoing } from './outgoing.js';
import type { BatchMember, BatchOptions, BatchSent, HeldBatch } from './outgoing-batch.js';
import type { ParsedBatch } from './parse.js';
import type { PendingCalls } from './pending.js';
import type { Profile, ProgressReporter } from './protocols.js';
import { sendError } from './send-error.js';
import { serializeNotification, serializeRequest } from './serialize.js';
import { applyCancelNotice, progressReporter } from './session-notices.js';
import { type SendAbout, startWaitOf, startWaits, watchDetached } from './session-sends.js';
import type { SessionOptions } from './session-types.js';
import { SENT, type Transport } from './transport.js';

/** The session has closed. */
export const CLOSED = 1;
/** The transport's start resolved and no send waits for it: sends go straight to it. */
export const STARTED = 2;
/** The other side ended its input. */
export const INPUT_ENDED = 4;

/**
 * What a session holds only once it is used for more than answering at once: its own calls, an
 * answer worked out later, its signal or `closed` read, or its close. Made on first use, so that
 * an idle session (a server holds one per connection) is one small object.
 */
export interface SessionExtras {
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
 * A session's sending half. A class rather than closures over a scope: a server holds one
 * session per connection, and here its behaviour lives once on the prototype while each session
 * holds only its fields. Its fields are the session's: its lifecycle (the subclass) reaches them
 * through the static accessors below (a static method adds nothing to an instance; a private
 * instance method would add a class brand to each).
 */
export abstract class SendingSession {
  readonly #transport: Transport;
  readonly #options: SessionOptions;
  /** {@link CLOSED}, {@link STARTED}, {@link INPUT_ENDED}. */
  #flags = 0;
  /** What an idle session does not hold (see {@link SessionExtras}). */
  #extras: SessionExtras | undefined;

  constructor(transport: Transport, options: SessionOptions) {
    this.#transport = transport;
    this.#options = options;
  }

  /** A session's options. */
  protected static optionsOf(session: SendingSession): SessionOptions {
    return session.#options;
  }

  /** A session's transport. */
  protected static transportOf(session: SendingSession): Transport {
    return session.#transport;
  }

  /** A session's extras, if it has any. */
  protected static extrasIf(session: SendingSession): SessionExtras | undefined {
    return session.#extras;
  }

  /** A session's extras, made now if it had none. */
  protected static extrasOf(session: SendingSession): SessionExtras {
    return (session.#extras ??= {});
  }

  /** Whether a session has one of these flags. */
  protected static hasFlag(session: SendingSession, flag: number): boolean {
    return (session.#flags & flag) !== 0;
  }

  /** Sets a flag of a session. */
  protected static setFlag(session: SendingSession, flag: number): void {
    session.#flags |= flag;
  }

  get profile(): Profile<any> | undefined {
    return this.#options.profile;
  }

  get pending(): PendingCalls {
    return SendingSession.#outgoingOf(this).pending;
  }

  get isClosed(): boolean {
    return (this.#flags & CLOSED) !== 0;
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
      if (--wait.waiting === 0 && wait.resolved) SendingSession.sendStraight(this);
      return this.isClosed
        ? Promise.reject(new ConnectionClosedError())
        : transport.send(text, sendOptions);
    });
  }

  /** From now on sends go straight to the transport. */
  protected static sendStraight(session: SendingSession): void {
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
  static #outgoingOf(session: SendingSession): Outgoing {
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
      placeNullIdErrors: options.placeNullIdErrors === true,
      report: (error, info) => options.report(error, info),
      send: (text, signal, callContext) => session.send(text, signal, callContext),
      sendDetached: (text) => session.sendDetached(text),
      isClosed: () => session.isClosed,
    });
    return extras.outgoing;
  }

  respond(response: JsonRpcResponse, hint?: unknown): void {
    SendingSession.#outgoingOf(this).respond(response, hint);
  }

  reject(id: JsonRpcId, error: Error): void {
    SendingSession.#outgoingOf(this).reject(id, error);
  }

  gaveUp(id: JsonRpcId): boolean {
    return SendingSession.#outgoingOf(this).gaveUp(id);
  }

  nextId(): JsonRpcId {
    return SendingSession.#outgoingOf(this).nextId();
  }

  sendBatch(members: readonly BatchMember[], options?: BatchOptions): BatchSent {
    return SendingSession.#outgoingOf(this).sendBatch(members, options);
  }

  holdBatch(): HeldBatch {
    return SendingSession.#outgoingOf(this).holdBatch();
  }

  respondBatch(batch: ParsedBatch): void {
    let nullErrors: JsonRpcResponse[] | undefined;
    let hint: unknown;
    for (const member of batch.messages) {
      if (member.kind !== 'response') continue;
      const response = member.message;
      if (response.id === null && 'error' in response) {
        // What the batch tells is read before any of its answers settles a call.
        if (nullErrors === undefined) hint = this.#extras?.outgoing?.batchHint(batch);
        (nullErrors ??= []).push(response);
      } else this.respond(response);
    }
    if (nullErrors !== undefined) for (const response of nullErrors) this.respond(response, hint);
  }

  request(
    method: string,
    params?: JsonRpcParams,
    options?: RequestOptions,
    id?: JsonRpcId,
  ): Promise<unknown> {
    return SendingSession.#outgoingOf(this).request(method, params, options, id);
  }

  consume(notification: JsonRpcNotification): boolean {
    const profile = this.profile;
    if (notification.method !== profile?.cancellation?.method) {
      return this.#extras?.outgoing?.progress(notification) === true;
    }
    applyCancelNotice(notification, profile!, this.#extras?.incoming, this.#options.report);
    return true;
  }

  progressFor(params: unknown, open: () => boolean): ProgressReporter<any> | undefined {
    return progressReporter(this.profile, params, open, this);
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
}
