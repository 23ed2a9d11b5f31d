/**
 * The single-call path of the dispatcher: one request run and answered (its result written, or
 * its failure mapped, or no answer when the session's profile says so), one notification run
 * (the session's own notices consumed first). Synchronous when the handler is; a call that
 * waits is tracked in the session's incoming-call table until it settles.
 *
 * @module
 */
import { type ErrorInfo as CoreErrorInfo, jsonrpc1, serializeError } from '@jsonrpc-kit/core';
import {
  type AnswerOptions,
  answerResult,
  isPromiseLike,
  type ParsedNotification,
  type ParsedRequest,
  type Session,
  serializeError1,
} from '@jsonrpc-kit/core/engine';
import type { Answer } from './batch.js';
import { Call } from './call.js';
import type { HandlerErrors } from './handler-errors.js';
import type { DispatcherConfig, Scope } from './scope.js';

/** What {@link createCallPath} offers the dispatcher. */
export interface CallPath {
  /** Runs one request and answers it: a string, nothing, or a promise of either. */
  answerRequest(parsed: ParsedRequest, scope: Scope): Answer;
  /** Runs one notification; resolves (never rejects) once its handler settles. */
  runNotification(parsed: ParsedNotification, scope: Scope): Promise<undefined> | undefined;
}

/**
 * Creates the single-call path of one server's dispatcher.
 *
 * @param config - the registry, the cancel notice's method, the error hook, the result writer
 * @param run - runs one call through middleware, validation and the handler
 * @param errors - the failure mapping
 * @returns the request and notification paths
 */
export function createCallPath(
  config: Pick<DispatcherConfig, 'methods' | 'report' | 'cancelMethod' | 'policies'>,
  run: (call: Call, scope: Scope) => unknown,
  errors: HandlerErrors,
): CallPath {
  const { methods, report } = config;
  const { write } = config.policies;
  const { errorObject, notificationFailed } = errors;

  const reportRequest = (error: Error, info: CoreErrorInfo): void =>
    report(error, { ...info, notification: false });

  const answerOptions: AnswerOptions | undefined = write === undefined ? undefined : { write };
  const answerOptions1: AnswerOptions = { write, jsonrpc1 };

  function success(parsed: ParsedRequest, result: unknown): string {
    return answerResult(
      parsed.message,
      parsed.rawId,
      result,
      reportRequest,
      parsed.jsonrpc1 === true ? answerOptions1 : answerOptions,
    );
  }

  function failure(
    parsed: ParsedRequest,
    call: Call,
    error: unknown,
    session: Session | undefined,
  ): string | undefined {
    if (session?.incoming.unanswered(error)) return undefined;
    return (parsed.jsonrpc1 === true ? serializeError1 : serializeError)(
      parsed.message.id,
      errorObject(error, call.method, parsed.message.id),
      parsed.rawId,
    );
  }

  function answerRequest(parsed: ParsedRequest, scope: Scope): Answer {
    const message = parsed.message;
    const call = new Call(
      message.id,
      message.method,
      message.params,
      scope.transport,
      scope.peer,
      scope.outer,
      scope.session,
    );
    const session = scope.session;
    let result: unknown;
    try {
      result = run(call, scope);
    } catch (error) {
      call.settled = true;
      return failure(parsed, call, error, session);
    }
    if (!isPromiseLike(result)) {
      call.settled = true;
      return success(parsed, result);
    }
    if (session === undefined) {
      return (result as Promise<unknown>).then(
        (value) => success(parsed, value),
        (error: unknown) => failure(parsed, call, error, undefined),
      );
    }
    const incoming = session.incoming;
    incoming.track(call);
    return (result as Promise<unknown>).then(
      (value) => {
        call.settled = true;
        incoming.untrack(call);
        return success(parsed, value);
      },
      (error: unknown) => {
        call.settled = true;
        incoming.untrack(call);
        return failure(parsed, call, error, session);
      },
    );
  }

  function runNotification(
    parsed: ParsedNotification,
    scope: Scope,
  ): Promise<undefined> | undefined {
    const message = parsed.message;
    const method = message.method;
    const session = scope.session;
    if (session !== undefined) {
      // The session's own notices (cancel, progress), as members of a batch.
      if (session.consume(message)) return undefined;
    } else if (method === config.cancelMethod && !methods.has(method)) {
      // Over handle() there is nothing to cancel across exchanges.
      return undefined;
    }
    const call = new Call(
      undefined,
      method,
      message.params,
      scope.transport,
      scope.peer,
      scope.outer,
      undefined,
    );
    let result: unknown;
    try {
      result = run(call, scope);
    } catch (error) {
      notificationFailed(method, error);
      return undefined;
    }
    if (!isPromiseLike(result)) return undefined;
    const incoming = session?.incoming;
    incoming?.track(call);
    return (result as Promise<unknown>).then(
      () => {
        incoming?.untrack(call);
        return undefined;
      },
      (error: unknown) => {
        incoming?.untrack(call);
        notificationFailed(method, error);
        return undefined;
      },
    );
  }

  return { answerRequest, runNotification };
}
