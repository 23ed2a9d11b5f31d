/**
 * The incoming-call runner: one parse result in, the answer text out. The one place where a
 * request is run and answered (its result written, its failure mapped, settled once, tracked in
 * the session's incoming-call table while it waits, answered early when aborted), a notification
 * is run (the session's own notices consumed first), a response settles the session's outgoing
 * call, an invalid message is answered or reported, and a batch is answered with its members'
 * concurrency bound. Synchronous all the way when the handler is: a sync handler's answer is a
 * string, not a promise.
 *
 * The server and the client compose it: each passes how a call is made and run (the server:
 * registry, limiter, middleware, schemas; the client: its two handlers) and its policies.
 *
 * ```text
 * answer(parsed, scope)
 *   batch ─────────── answerBatch (answer-batch.ts) ── member() per member
 *   request ───────── call() → run() → success / failure (call-failures.ts)
 *   notification ──── session.consume (cancel, progress) or call() → run()
 *   response ──────── taken by the session (received, respondBatch), or -32600 without one
 *   invalid ───────── invalid-messages.ts: answered or reported; an invalid answer fails its call
 * ```
 *
 * @module
 */
import { answerBatch, BATCH_TOO_LARGE_TEXT, type BatchScheduling } from './answer-batch.js';
import {
  type CallFailures,
  createCallFailures,
  type ErrorHandler,
  type RunnerReport,
} from './call-failures.js';
import { InvalidRequestError } from './errors.js';
import type { IncomingCall } from './incoming.js';
import { createInvalidHandling } from './invalid-messages.js';
import type { JsonRpc1 } from './jsonrpc1.js';
import type {
  ParsedMessage,
  ParsedNotification,
  ParsedRequest,
  ParsedResponse,
  ParseResult,
} from './parse.js';
import type { ErrorInfo } from './report.js';
import { serializeError, serializeSuccess, UNSERIALIZABLE_RESULT } from './serialize.js';
import type { Session, SessionAnswer } from './session.js';
import { isPromiseLike } from './thenable.js';

/** One incoming call as the runner sees it: its owner's call object (the handler's `ctx`). */
export interface RunnerCall extends IncomingCall {
  /** The method called. */
  readonly method: string;
  /** Whether the call was aborted (cancelled, timed out, closed) before it was answered. */
  readonly aborted: boolean;
  /** Why it was aborted. */
  readonly abortReason: unknown;
  /**
   * Set by the runner while the call's answer waits: `abort(reason)` calls it, so the call is
   * answered with `reason` at once (a late result is dropped).
   */
  fail: ((reason: unknown) => void) | undefined;
  /** Whether the call has been answered (set by the runner; progress reports stop). */
  settled: boolean;
}

/** Options of {@link createIncomingRunner}. */
export interface IncomingRunnerOptions<S, C extends RunnerCall> {
  /**
   * Makes the call object of one request or notification.
   *
   * @param parsed - the parsed request or notification
   * @param scope - where it is answered
   * @returns the call
   */
  readonly call: (parsed: ParsedRequest | ParsedNotification, scope: S) => C;
  /**
   * Runs one call: its result, a promise of it, or a throw with what it failed with. A call the
   * owner does not serve throws `MethodNotFoundError`.
   *
   * @param call - the call
   * @param scope - where it is answered
   * @returns the result
   */
  readonly run: (call: C, scope: S) => unknown;
  /**
   * The session a scope belongs to: its incoming-call table, its outgoing calls (responses), its
   * notices (cancel, progress); `undefined` for a stateless exchange.
   *
   * @param scope - the scope
   * @returns its session
   */
  readonly session: (scope: S) => Session | undefined;
  /** Where failures go. */
  readonly report: RunnerReport;
  /** Maps a thrown value that is not a `JsonRpcError` to an error object. @default none */
  readonly errorHandler?: ErrorHandler | undefined;
  /** Answer unexpected failures with their message and stack. @default false */
  readonly exposeErrorDetails?: boolean | undefined;
  /**
   * Core's `jsonrpc1`, to answer a request read as JSON-RPC 1.0 in 1.0 form; passed, not imported,
   * so that an owner that never reads 1.0 does not carry its writers. @default none (2.0 form)
   */
  readonly jsonrpc1?: JsonRpc1 | undefined;
  /** Writes results (a codec's writer). @default JSON.stringify */
  readonly write?: ((value: unknown) => string | undefined) | undefined;
  /** Most members of one batch. @default Infinity */
  readonly maxBatchSize?: number | undefined;
  /** Most async members of one batch running at once. @default Infinity */
  readonly batchConcurrency?: number | undefined;
  /** The code for params that are neither an array nor an object: -32602 or -32600. @default -32602 */
  readonly paramsViolationCode?: number | undefined;
  /**
   * Whether invalid text that is not an answer is answered (-32700, -32600, as the spec asks of
   * a server) or only reported (a client: its peer is a server, whose garbage is not answered
   * back; only an invalid request with a method and an id is answered). @default true
   */
  readonly answerInvalid?: boolean | undefined;
  /**
   * A notification of this method is ignored without a session (nothing to cancel across
   * stateless exchanges), unless the owner serves it: return `true` to ignore.
   */
  readonly ignoreWithoutSession?: ((method: string) => boolean) | undefined;
}

/** The runner: {@link IncomingRunner.answer}. */
export interface IncomingRunner<S> {
  /**
   * Answers one parse result.
   *
   * @param parsed - the message or batch
   * @param scope - where it is answered
   * @param text - its text (named in reports of text that is not JSON)
   * @returns the text to send, `undefined` for nothing, or a promise of either
   */
  answer(parsed: ParseResult, scope: S, text?: string): SessionAnswer;
}

/**
 * Creates an incoming-call runner.
 *
 * @param options - how calls are made and run, and the policies
 * @returns the runner
 * @example
 * ```ts
 * const session = createSession(transport, { report: console.warn });
 * const runner = createIncomingRunner({
 *   call: (parsed) => newCall(parsed),
 *   run: (call) => 'pong',
 *   session: () => session,
 *   report: console.warn,
 * });
 * session.start((parsed, text) => runner.answer(parsed, undefined, text));
 * ```
 */
export function createIncomingRunner<S, C extends RunnerCall>(
  options: IncomingRunnerOptions<S, C>,
): IncomingRunner<S> {
  const { call: makeCall, run, session: sessionOf, report, write } = options;
  const writeSuccess1 = options.jsonrpc1?.serializeSuccess ?? serializeSuccess;
  const writeError1 = options.jsonrpc1?.serializeError ?? serializeError;
  const invalid = createInvalidHandling(options);
  const ignoreWithoutSession = options.ignoreWithoutSession;
  const failures: CallFailures = createCallFailures(options);
  const { errorObject, notificationFailed } = failures;

  const reportRequest = (error: unknown, info: ErrorInfo): void => report(error, info, false);

  function success(parsed: ParsedRequest, result: unknown): string {
    const { message, rawId } = parsed;
    const version1 = parsed.jsonrpc1 === true;
    try {
      if (!version1 && write === undefined) return serializeSuccess(message.id, result, rawId);
      return (version1 ? writeSuccess1 : serializeSuccess)(message.id, result, rawId, write);
    } catch (error) {
      reportRequest(error, {
        kind: 'unserializable-result',
        level: 'error',
        method: message.method,
        id: message.id,
      });
      return (version1 ? writeError1 : serializeError)(message.id, UNSERIALIZABLE_RESULT, rawId);
    }
  }

  function failure(
    parsed: ParsedRequest,
    error: unknown,
    session: Session | undefined,
  ): string | undefined {
    const message = parsed.message;
    if (session !== undefined) {
      if (session.incoming.unanswered(error)) return undefined;
      if (session.isClosed && error === session.signal.reason) {
        // Closed under the call: nobody to answer; routine, whatever the close reason.
        report(
          error,
          { kind: 'caller-gone', level: 'debug', method: message.method, id: message.id },
          false,
        );
        return undefined;
      }
    }
    return (parsed.jsonrpc1 === true ? writeError1 : serializeError)(
      message.id,
      errorObject(error, message.method, message.id),
      parsed.rawId,
    );
  }

  /** The answer of a call that ended: its result or failure, written (a notification: none). */
  function finish(
    parsed: ParsedRequest | ParsedNotification,
    failed: boolean,
    value: unknown,
    session: Session | undefined,
  ): string | undefined {
    if (parsed.kind === 'request') {
      return failed ? failure(parsed, value, session) : success(parsed, value);
    }
    if (failed) notificationFailed(parsed.message.method, value);
    return undefined;
  }

  /**
   * Makes and runs one call. Synchronous when its handler is; a call that goes async is tracked
   * in the session's table meanwhile, settled once (by its result, or at once by an abort) and
   * untracked when settled.
   */
  function runCall(
    parsed: ParsedRequest | ParsedNotification,
    scope: S,
    session: Session | undefined,
  ): SessionAnswer {
    const call = makeCall(parsed, scope);
    let result: unknown;
    try {
      result = run(call, scope);
    } catch (error) {
      call.settled = true;
      return finish(parsed, true, error, session);
    }
    if (!isPromiseLike(result)) {
      call.settled = true;
      return finish(parsed, false, result, session);
    }
    const incoming = session?.incoming;
    incoming?.track(call);
    return new Promise((resolve) => {
      const settle = (failed: boolean, value: unknown): void => {
        if (call.settled) return; // answered already (aborted): a late result is dropped
        call.settled = true;
        call.fail = undefined;
        incoming?.untrack(call);
        resolve(finish(parsed, failed, value, session));
      };
      call.fail = (reason) => settle(true, reason);
      if (call.aborted) settle(true, call.abortReason);
      result.then(
        (value) => settle(false, value),
        (error: unknown) => settle(true, error),
      );
    });
  }

  function request(parsed: ParsedRequest, scope: S): SessionAnswer {
    const session = sessionOf(scope);
    return session?.isClosed ? undefined : runCall(parsed, scope, session);
  }

  function notification(parsed: ParsedNotification, scope: S): SessionAnswer {
    const session = sessionOf(scope);
    if (session !== undefined) {
      // The session's own notices (cancel, progress).
      if (session.consume(parsed.message)) return undefined;
    } else if (ignoreWithoutSession?.(parsed.message.method) === true) {
      return undefined;
    }
    return runCall(parsed, scope, session);
  }

  function response(parsed: ParsedResponse, scope: S): string | undefined {
    // A session takes every response itself: a lone one as it arrives, a batch's in respondBatch.
    if (sessionOf(scope) !== undefined) return undefined;
    // A stateless exchange has no requests of its own to correlate a response with.
    return serializeError(
      parsed.message.id,
      new InvalidRequestError('Invalid Request: a response cannot be answered').toErrorObject(),
      parsed.rawId,
    );
  }

  function member(parsed: ParsedMessage, scope: S, text?: string): SessionAnswer {
    switch (parsed.kind) {
      case 'request':
        return request(parsed, scope);
      case 'notification':
        return notification(parsed, scope);
      case 'response':
        return response(parsed, scope);
      default:
        return invalid(parsed, sessionOf(scope), text);
    }
  }

  const batchOptions: BatchScheduling<ParsedMessage, S> = {
    maxBatchSize: options.maxBatchSize ?? Number.POSITIVE_INFINITY,
    concurrency: options.batchConcurrency ?? Number.POSITIVE_INFINITY,
    answer: member,
  };

  return {
    answer(parsed, scope, text) {
      if (parsed.kind !== 'batch') return member(parsed, scope, text);
      const members = parsed.messages;
      if (members.length > batchOptions.maxBatchSize) return BATCH_TOO_LARGE_TEXT;
      sessionOf(scope)?.respondBatch(parsed);
      return answerBatch(members, scope, batchOptions);
    },
  };
}
