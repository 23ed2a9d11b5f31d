/**
 * The outgoing half of a session: the calls this side makes, their ids, timeouts and give-ups,
 * their progress listeners, and the answers that settle them. The session (session.ts) owns the
 * transport and hands this half a way to send.
 *
 * ```text
 * request(method, params) ── id ── pending table (timeout, abort, give-up → cancel notice) → send
 * response ── respond ── settle the waiting call, or: id null → its call(s), by the batch
 *                         records (batch-records.ts), or reported; late → dropped; unknown → reported
 * batches ── sendBatch / holdBatch (outgoing-batch.ts) ── ids, pending table, records → send
 * progress notice ── progress(notification) ── the onProgress of the call with that token
 * ```
 *
 * @module
 */

import { type BatchRecords, createBatchRecords } from './batch-records.js';
import {
  type CallContext,
  DEFAULT_CONTEXT_MEMBER,
  hasCallContext,
  outgoingContext,
  withCallContext,
} from './call-context.js';
import { cancelReasonText } from './cancel-reason.js';
import type { RequestOptions } from './endpoint.js';
import { AbortError, ConnectionClosedError, ProtocolError, TimeoutError } from './errors.js';
import type { JsonRpcId, JsonRpcNotification, JsonRpcParams, JsonRpcResponse } from './messages.js';
import { type BatchContext, holdBatch, sendBatch } from './outgoing-batch.js';
import type { ParsedBatch } from './parse.js';
import { createPendingCalls, type GiveUpReason } from './pending.js';
import type { Profile, ProgressToken } from './protocols.js';
import { RecentKeys } from './recent-keys.js';
import type { ErrorInfo } from './report.js';
import { sendError } from './send-error.js';
import { watchSends } from './send-watch.js';
import type { Session } from './session-types.js';
import { toError } from './to-error.js';
import { SENT } from './transport.js';
import { TurnoverMap } from './turnover-map.js';

/** The longest delay `setTimeout` holds; longer ones fire at once. */
const MAX_TIMER_MS = 2_147_483_647;

/** Most ids of calls that gave up kept in memory, to recognise their late answers. */
const LATE_ANSWER_MEMORY = 1024;

/** What the outgoing half needs from its session. */
export interface OutgoingOptions {
  readonly profile: Profile<any> | undefined;
  readonly sendCancel: boolean;
  readonly callTimeout: number;
  /**
   * The deadline of a call with no timeout of its own when `callTimeout` is `0`: fails the
   * call but leaves its send alone; `0`: none.
   */
  readonly fallbackTimeout: number;
  /** Writes a notification's message (the cancel notice). */
  readonly serializeNotification: (method: string, params: JsonRpcParams | undefined) => string;
  /** Writes a call's message. */
  readonly serializeRequest: (
    id: JsonRpcId,
    method: string,
    params: JsonRpcParams | undefined,
  ) => string;
  readonly lateAnswerMemory: number | undefined;
  readonly generateId: (() => JsonRpcId) | undefined;
  /** Whether an id-null error answer fails the call(s) it belongs to (else it is reported). */
  readonly placeNullIdErrors: boolean;
  readonly report: (error: Error, info: ErrorInfo) => void;
  /** The params member that carries a call's context. @default "_meta" */
  readonly contextMember?: string | undefined;
  /** Whether the transport carries a call's context itself (HTTP headers). */
  readonly carriesContext?: boolean | undefined;
  /** Sends a text in call order; the signal aborts the send; the context goes to the transport. */
  readonly send: (text: string, signal?: AbortSignal, context?: CallContext) => Promise<void>;
  /** Sends a notice nobody waits on. */
  readonly sendDetached: (text: string) => void;
  /** Whether the session has closed. */
  readonly isClosed: () => boolean;
}

/** The outgoing half of a session (its calls, as the session offers them). See {@link createOutgoing}. */
export interface Outgoing
  extends Pick<
    Session,
    'pending' | 'request' | 'respond' | 'sendBatch' | 'holdBatch' | 'reject' | 'gaveUp' | 'nextId'
  > {
  /** What a batch answer tells about an id-null error in it (the batch message it answers). */
  batchHint(batch: ParsedBatch): unknown;
  /** Applies a progress notice to the call waiting on its token; `false` when none waits. */
  progress(notification: JsonRpcNotification): boolean;
  /** Fails every waiting call with a ConnectionClosedError. */
  failAll(message: string | undefined, cause: unknown): void;
  /** Fails every waiting call and forgets everything (the session closed). */
  close(cause: unknown): void;
}

/**
 * Creates the outgoing half of a session.
 *
 * @param options - the session's settings and its way to send
 * @returns the outgoing half
 */
export function createOutgoing(options: OutgoingOptions): Outgoing {
  const { report, profile, send, sendDetached, isClosed, generateId } = options;
  const { fallbackTimeout, serializeRequest: requestText } = options;
  const pending = createPendingCalls({ fallbackTimeout });
  const cancellation = profile?.cancellation;
  const progress = profile?.progress;
  const progressMethod = progress?.method;
  const sendCancel = options.sendCancel && cancellation !== undefined;
  const defaultTimeout = options.callTimeout;
  const contextMember = options.contextMember ?? DEFAULT_CONTEXT_MEMBER;
  const carriesContext = options.carriesContext === true;
  const givenUp = new RecentKeys<JsonRpcId>(options.lateAnswerMemory ?? LATE_ANSWER_MEMORY);
  let counter = 1;
  /** Listeners of progress by token, for outgoing calls that asked for progress. */
  let listeners: Map<ProgressToken, (value: unknown) => void> | undefined;
  let nextToken = 0;
  /** Sends under way of calls with a timeout: aborted when the call gives up. */
  const sendAborts = new TurnoverMap<JsonRpcId, AbortController>();

  const onGiveUp = (
    reason: GiveUpReason,
    id: JsonRpcId,
    method: string,
    cause?: unknown,
    notice = true,
  ): void => {
    givenUp.add(id);
    if (!notice || !sendCancel || isClosed()) return;
    let text: string;
    try {
      text = options.serializeNotification(
        cancellation!.method,
        cancellation!.toParams(id, cancelReasonText(reason, cause)),
      );
    } catch (error) {
      report(toError(error), { kind: 'send-failed', level: 'error', method, id });
      return;
    }
    sendDetached(text);
  };

  const giveUpTimed = (
    reason: GiveUpReason,
    id: JsonRpcId,
    method: string,
    cause?: unknown,
  ): void => {
    const sending = sendAborts.get(id);
    if (sending !== undefined) {
      sendAborts.delete(id);
      sending.abort();
    }
    onGiveUp(reason, id, method, cause);
  };

  const unknownAnswer = (response: JsonRpcResponse): void => {
    const id = response.id;
    if (givenUp.has(id)) return; // a late answer: the call already gave up
    report(
      new ProtocolError(
        `Received an answer for an unknown or already answered id ${JSON.stringify(id)}`,
        response,
      ),
      { kind: 'unexpected-response', level: 'warn', id },
    );
  };

  /** Which calls went out in one batch message: made with the first batch or id-null error. */
  let records: BatchRecords | undefined;
  const recordsOf = (): BatchRecords => (records ??= createBatchRecords(pending, onGiveUp, report));

  const respond = (response: JsonRpcResponse, hint?: unknown): void => {
    if (pending.settle(response)) {
      if (records !== undefined && records.size !== 0) records.leave(response.id, true);
    } else if (response.id === null && 'error' in response && options.placeNullIdErrors) {
      recordsOf().failNullId(response.error, hint, response);
    } else unknownAnswer(response);
  };

  const reject = (id: JsonRpcId, error: Error): void => {
    if (pending.reject(id, error) && records !== undefined && records.size !== 0) {
      records.leave(id, true);
    }
  };

  const onProgress = (notification: JsonRpcNotification): boolean => {
    if (notification.method !== progressMethod || listeners === undefined) return false;
    const reported = progress!.fromParams(notification.params);
    const listener = reported === undefined ? undefined : listeners.get(reported.token);
    if (listener === undefined) return false;
    try {
      listener(reported!.value);
    } catch (error) {
      report(toError(error), {
        kind: 'notification-failed',
        level: 'error',
        method: notification.method,
      });
    }
    return true;
  };

  /** How a call under the safety net waits: one options object for all of them. */
  const netted = { fallback: true, onGiveUp } as const;

  const nextId = (): JsonRpcId => (generateId === undefined ? counter++ : generateId());

  /** A call whose send failed fails with the send's error, unless it was answered meanwhile. */
  const watchSend = watchSends<JsonRpcId, string>((error, id, method) => {
    if (pending.has(id)) pending.reject(id, sendError(error, { method, id }));
  });

  /** Sends a call's message; a failure rejects the call (a send already done needs no watch). */
  const sendCall = (
    id: JsonRpcId,
    method: string,
    text: string,
    signal?: AbortSignal,
    context?: CallContext,
  ): void => {
    const sent = send(text, signal, context);
    if (sent !== SENT) watchSend(sent, id, method);
  };

  /** Routes the progress reports of one call to its listener until the call settles. */
  const listen = (
    id: JsonRpcId,
    token: ProgressToken,
    onValue: (value: unknown) => void,
    reset: boolean,
    promise: Promise<unknown>,
  ): void => {
    listeners!.set(token, (value) => {
      if (reset) pending.refresh(id);
      onValue(value);
    });
    const done = (): void => {
      listeners?.delete(token);
    };
    promise.then(done, done);
  };

  /** A fresh progress token, not used by any call still waiting. */
  const newToken = (): ProgressToken => {
    listeners ??= new Map();
    let token: ProgressToken;
    do token = ++nextToken;
    while (listeners.has(token));
    return token;
  };

  /** Sends a call with a timeout: its send aborts when it gives up. */
  const sendTimed = (
    id: JsonRpcId,
    method: string,
    text: string,
    promise: Promise<unknown>,
    context: CallContext | undefined,
  ) => {
    const sending = new AbortController();
    sendAborts.set(id, sending);
    const forget = (): void => {
      sendAborts.delete(id);
    };
    promise.then(forget, forget);
    sendCall(id, method, text, sending.signal, context);
  };

  const request = (
    method: string,
    params?: JsonRpcParams,
    callOptions?: RequestOptions,
    givenId?: JsonRpcId,
  ): Promise<unknown> => {
    if (isClosed()) return Promise.reject(new ConnectionClosedError(undefined, { method }));
    const onValue = callOptions?.onProgress;
    let token: ProgressToken | undefined;
    let id: JsonRpcId;
    let text: string;
    let context: CallContext | undefined;
    try {
      id = givenId === undefined ? nextId() : givenId;
      if (onValue !== undefined) {
        if (progress === undefined) throw new TypeError('onProgress needs a profile with progress');
        token = newToken();
        params = progress.withToken(params, token);
      }
      if (hasCallContext(callOptions)) {
        context = outgoingContext(callOptions!, defaultTimeout, Date.now());
        if (context.timeout !== undefined && context.timeout <= 0) {
          return Promise.reject(new TimeoutError(0, { method, id }));
        }
        // By-position params have no place for it: the deadline then bounds the wait here only.
        if (!carriesContext) params = withCallContext(params, contextMember, context);
      }
      text = requestText(id, method, params);
    } catch (error) {
      return Promise.reject(error);
    }
    const signal = callOptions?.signal;
    // A deadline beyond what a timer holds (about 24.8 days) travels, but bounds nothing here.
    const bound = context?.timeout;
    const timeout =
      bound !== undefined && bound <= MAX_TIMER_MS
        ? bound
        : (callOptions?.timeout ?? defaultTimeout);
    const timed = timeout > 0 && timeout < Number.POSITIVE_INFINITY;
    const sentContext = carriesContext ? context : undefined;
    // Without a timeout of its own, the fallback deadline (a safety net) fails the call but
    // leaves its send alone: no send signal, no controller, no timer per call.
    const fallback = !timed && callOptions?.timeout === undefined && fallbackTimeout > 0;
    if (signal === undefined && !timed && token === undefined) {
      // The lean path: nothing but the safety net can make this call give up on its own.
      let promise: Promise<unknown>;
      try {
        promise = fallback ? pending.add(id, method, netted) : pending.add(id, method);
      } catch (error) {
        return Promise.reject(error);
      }
      sendCall(id, method, text, undefined, sentContext);
      return promise;
    }
    if (signal?.aborted) {
      return Promise.reject(new AbortError({ method, id, cause: signal.reason }));
    }
    let promise: Promise<unknown>;
    try {
      promise =
        signal === undefined && !timed && !fallback
          ? pending.add(id, method)
          : pending.add(id, method, {
              timeout: timed ? timeout : undefined,
              fallback,
              signal,
              onGiveUp: timed ? giveUpTimed : onGiveUp,
            });
    } catch (error) {
      return Promise.reject(error);
    }
    if (token !== undefined) {
      listen(id, token, onValue!, callOptions?.resetTimeoutOnProgress === true, promise);
    }
    // The send stops when the call gives up: the caller's signal is the send's signal, unless a
    // timeout can end the call too.
    if (timed) sendTimed(id, method, text, promise, sentContext);
    else sendCall(id, method, text, signal, sentContext);
    return promise;
  };

  const failAll = (message: string | undefined, cause: unknown): void => {
    pending.rejectAll((waiting) => {
      records?.leave(waiting.id, false);
      return new ConnectionClosedError(message, { method: waiting.method, id: waiting.id, cause });
    });
  };

  /** What a batch needs of this half. */
  const batchContext: BatchContext = {
    pending,
    records: recordsOf,
    nextId,
    requestText,
    notificationText: options.serializeNotification,
    send: (text, signal) => send(text, signal),
    isClosed,
  };

  return {
    pending,
    request,
    respond,
    reject,
    sendBatch: (members, batchOptions) => sendBatch(batchContext, members, batchOptions),
    holdBatch: () => holdBatch(batchContext),
    batchHint: (batch) => records?.hintOf(batch),
    progress: onProgress,
    gaveUp: (id) => givenUp.has(id),
    nextId,
    failAll,
    close(cause) {
      // The cause (a WebSocket's close code and why, say) is what a caller needs to act on.
      failAll(cause instanceof Error ? `Connection closed: ${cause.message}` : undefined, cause);
      givenUp.clear();
      listeners?.clear();
      records?.clear();
    },
  };
}
