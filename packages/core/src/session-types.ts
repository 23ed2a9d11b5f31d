/**
 * What a session is to its owners: the {@link Session} interface, its options and the dispatch it
 * hands what arrives. The session itself is in session.ts.
 *
 * @module
 */
import type { RequestOptions } from './endpoint.js';
import type { MessageEnvelope } from './envelope.js';
import type { IncomingCalls } from './incoming.js';
import type { JsonRpcId, JsonRpcNotification, JsonRpcParams, JsonRpcResponse } from './messages.js';
import type { BatchMember, BatchOptions, BatchSent, HeldBatch } from './outgoing-batch.js';
import type { ParsedBatch, ParseResult } from './parse.js';
import type { PendingCalls } from './pending.js';
import type { Profile, ProgressReporter } from './protocols.js';
import type { ErrorInfo } from './report.js';
import type { Transport } from './transport.js';

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
  /**
   * What an error answer with id `null` (the other side could not read the request) does: `true`
   * fails the call(s) it belongs to: the members still unanswered of the batch message it answers
   * (see {@link Session.respondBatch}), or the one call waiting, or those of the one batch sent while
   * its calls are all that wait; when it cannot be placed among several, every call sent fails
   * with a `ProtocolError` saying why. `false` reports it.
   * @default false
   */
  readonly placeNullIdErrors?: boolean | undefined;
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
   * Takes a response: settles the waiting call; an id-null error fails its call(s) (with
   * `placeNullIdErrors`) or is reported; an answer nobody waits for is reported (unless its call
   * gave up).
   *
   * @param response - the response
   * @param hint - for an id-null error: what the batch it came in tells about its call(s) (as
   *   {@link Session.respondBatch} passes it)
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
   * Sends several calls and notifications as one batch message (a JSON array): takes an id for
   * each request, writes every member, registers the requests in the pending table (their
   * timeouts, signal and give-ups), keeps the batch's record (an id-null error answer fails the
   * members of that message still unanswered), and sends the text. Once every request member
   * gave up, the send stops.
   *
   * @param members - the members, in order
   * @param options - signal and timeout of every request member; `beforeSend` (messages to send
   *   first)
   * @returns one promise per request member, or, for notifications only, the send's promise
   * @throws ConnectionClosedError, AbortError (the signal was already aborted), the error of
   *   writing a member, or that of an id already pending: nothing was registered or sent then
   */
  sendBatch(members: readonly BatchMember[], options?: BatchOptions): BatchSent;
  /**
   * Opens a batch whose members are added over time and sent when its owner says
   * (auto-batching): each request enters the pending table when added, and one that gives up
   * before the batch is sent is left out of it without a cancel notice.
   *
   * @returns the held batch
   */
  holdBatch(): HeldBatch;
  /**
   * Takes the answers in a batch that arrived: settles those with an id first, then the id-null
   * errors, which (with `placeNullIdErrors`) fail what is left unanswered of the batch message
   * the other answers belong to. The incoming runner calls it before it runs the batch's requests.
   *
   * @param batch - the parsed batch
   */
  respondBatch(batch: ParsedBatch): void;
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
