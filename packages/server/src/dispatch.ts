/**
 * The dispatcher: one parsed message in, the answer text out (batches are handed to
 * `answerBatch`, which calls back here per member). Synchronous all the way when the handler is:
 * a sync handler's answer is a string, not a promise, so `handle()` and connections pay no
 * promise per step.
 *
 * @module
 */
import {
  ConnectionClosedError,
  ErrorCode,
  type ErrorKind,
  type ErrorLevel,
  formatIssues,
  fromErrorObject,
  InvalidParamsError,
  InvalidRequestError,
  isJsonRpcError,
  isPromiseLike,
  type JsonRpcErrorObject,
  type JsonRpcId,
  MethodNotFoundError,
  type ParsedInvalid,
  type ParsedMessage,
  type ParsedNotification,
  type ParsedRequest,
  type ParsedResponse,
  type ParseResult,
  type Peer,
  RequestTimeoutError,
  runMiddleware,
  type Session,
  ServerBusyError,
  type StandardSchemaResult,
  serializeError,
  serializeSuccess,
  type TransportContext,
  UNSERIALIZABLE_RESULT,
} from '@jsonrpc-kit/core';
import { type Answer, answerBatch, type BatchOptions } from './batch.js';
import { Call, type SignalSource } from './call.js';
import { type Limiter, release } from './limiter.js';
import { arrangeParams, type Entry } from './registry.js';
import type { ErrorInfo, Middleware } from './types.js';

/** Where a message is answered: one `handle()` exchange, or one connection. */
export interface Scope {
  readonly transport: TransportContext;
  readonly peer: Peer | undefined;
  readonly limiter: Limiter;
  /**
   * The connection's session: its incoming-call table (cancellation, close), its outgoing calls
   * (responses), its profile (progress); `undefined` for `handle()`.
   */
  readonly session: Session | undefined;
  /** Holds the signal that aborts every call of the scope (the exchange's), read only when needed. */
  readonly outer: SignalSource | undefined;
}

/** What the dispatcher needs from the server. */
export interface DispatcherConfig {
  readonly methods: ReadonlyMap<string, Entry>;
  /** The current middleware (replaced, never mutated, on change). */
  readonly middleware: () => readonly Middleware[];
  readonly maxBatchSize: number;
  readonly batchConcurrency: number;
  readonly timeout: number;
  readonly exposeErrorDetails: boolean;
  /** The cancel notice's method: ignored over `handle()` unless a method of that name exists. */
  readonly cancelMethod: string | undefined;
  readonly report: (error: unknown, info: ErrorInfo) => void;
}

/** What the dispatcher offers the server. */
export interface Dispatcher {
  /** Answers one parse result: a string, `undefined` (nothing to answer), or a promise of either. */
  answer(parsed: ParseResult, scope: Scope): Answer;
  /** Runs one call through middleware, validation and the handler, within the scope's limits. */
  run(call: Call, scope: Scope): unknown;
  /** The wire error for anything thrown by a request; unexpected failures are reported. */
  errorObject(error: unknown, method: string, id: JsonRpcId): JsonRpcErrorObject;
  /** Reports a notification's failure (an unknown method at debug level). */
  notificationFailed(method: string, error: unknown): void;
}

const INTERNAL_ERROR: JsonRpcErrorObject = Object.freeze({
  code: ErrorCode.InternalError,
  message: 'Internal error',
});

function checked(result: StandardSchemaResult<unknown>): unknown {
  if (result.issues !== undefined) {
    throw new InvalidParamsError('Invalid params', formatIssues(result.issues));
  }
  return result.value;
}

/**
 * Creates the dispatcher of one server.
 *
 * @param config - the registry, limits and hooks
 * @returns the dispatcher
 */
export function createDispatcher(config: DispatcherConfig): Dispatcher {
  const { methods, middleware: currentMiddleware, exposeErrorDetails, report } = config;
  const defaultTimeout = config.timeout;

  /** Innermost step: lookup, name mapping, validation, handler. */
  function invoke(call: Call): unknown {
    const entry = methods.get(call.method);
    // A request to a notification handler gets nothing it could answer with: as if not there.
    if (entry === undefined || (entry.kind === 'notification' && !call.notification)) {
      throw new MethodNotFoundError();
    }
    let params = arrangeParams(entry, call.params);
    const schema = entry.schema;
    if (schema !== undefined) {
      const verdict = schema['~standard'].validate(params);
      if (isPromiseLike(verdict)) {
        return (verdict as Promise<StandardSchemaResult<unknown>>).then((v) =>
          entry.handler(checked(v), call),
        );
      }
      params = checked(verdict);
    }
    return entry.handler(params, call);
  }

  /** Runs a call's chain (sync when possible); throws or rejects with what the call failed with. */
  function start(call: Call): unknown {
    if (call.aborted) throw call.abortReason;
    const list = currentMiddleware();
    return list.length === 0 ? invoke(call) : runMiddleware(list, call, () => invoke(call));
  }

  /** Takes a slot (or queues for one), runs the call, frees the slot when the handler settles. */
  function limited(call: Call, limiter: Limiter): unknown {
    if (limiter.active < limiter.max) {
      limiter.active++;
      let result: unknown;
      try {
        result = start(call);
      } catch (error) {
        release(limiter);
        throw error;
      }
      if (!isPromiseLike(result)) {
        release(limiter);
        return result;
      }
      return result.then(
        (value) => {
          release(limiter);
          return value;
        },
        (error: unknown) => {
          release(limiter);
          throw error;
        },
      );
    }
    if (limiter.queue.length >= limiter.maxQueue) throw new ServerBusyError();
    return new Promise((resolve, reject) => {
      limiter.queue.push(() => {
        if (call.aborted) {
          reject(call.abortReason);
          return;
        }
        try {
          resolve(limited(call, limiter));
        } catch (error) {
          reject(error);
        }
      });
    });
  }

  /** Answers early on timeout, cancellation or close; a late result is dropped. */
  function guard(call: Call, promise: PromiseLike<unknown>, timeout: number): Promise<unknown> {
    return new Promise((resolve, reject) => {
      let timer: ReturnType<typeof setTimeout> | undefined;
      const done = (): void => {
        if (timer !== undefined) clearTimeout(timer);
        call.fail = undefined;
        call.unlink();
      };
      call.fail = (reason) => {
        done();
        reject(reason);
      };
      if (timeout > 0) {
        timer = setTimeout(
          () => call.abort(new RequestTimeoutError(`Request timed out after ${timeout} ms`)),
          timeout,
        );
      }
      call.link();
      if (call.aborted) {
        done();
        reject(call.abortReason);
      }
      promise.then(
        (value) => {
          done();
          resolve(value);
        },
        (error: unknown) => {
          done();
          reject(error);
        },
      );
    });
  }

  function run(call: Call, scope: Scope): unknown {
    const result = limited(call, scope.limiter);
    if (!isPromiseLike(result)) return result;
    const entry = methods.get(call.method);
    const timeout = entry?.timeout ?? defaultTimeout;
    if (timeout > 0 || scope.session !== undefined || scope.outer !== undefined) {
      return guard(call, result, timeout);
    }
    return result;
  }

  function errorObject(error: unknown, method: string, id: JsonRpcId): JsonRpcErrorObject {
    if (isJsonRpcError(error)) return error.toErrorObject();
    if (!(error instanceof ConnectionClosedError)) {
      report(error, { kind: 'handler-failed', level: 'error', method, id, notification: false });
    }
    if (!exposeErrorDetails) return INTERNAL_ERROR;
    const message =
      error instanceof Error
        ? error.message || 'Internal error'
        : `Internal error: ${String(error)}`;
    const stack = error instanceof Error ? error.stack : undefined;
    return stack === undefined
      ? { code: ErrorCode.InternalError, message }
      : { code: ErrorCode.InternalError, message, data: { stack } };
  }

  function notificationFailed(method: string, error: unknown): void {
    if (error instanceof ConnectionClosedError) return;
    let kind: ErrorKind = 'notification-failed';
    let level: ErrorLevel = 'error';
    if (error instanceof MethodNotFoundError) {
      kind = 'unknown-notification';
      level = 'debug';
    } else if (isJsonRpcError(error)) level = 'warn';
    report(error, { kind, level, method, notification: true });
  }

  function success(parsed: ParsedRequest, result: unknown): string {
    try {
      return serializeSuccess(parsed.message.id, result, parsed.rawId);
    } catch (error) {
      report(error, {
        kind: 'unserializable-result',
        level: 'error',
        method: parsed.message.method,
        id: parsed.message.id,
        notification: false,
      });
      return serializeError(parsed.message.id, UNSERIALIZABLE_RESULT, parsed.rawId);
    }
  }

  function failure(
    parsed: ParsedRequest,
    call: Call,
    error: unknown,
    session: Session | undefined,
  ): string | undefined {
    if (session?.incoming.unanswered(error)) return undefined;
    return serializeError(
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

  function answerInvalid(parsed: ParsedInvalid, scope: Scope): string | undefined {
    if (parsed.silent || (parsed.response && scope.session !== undefined)) {
      const value = parsed.value as { method?: unknown } | undefined;
      report(fromErrorObject(parsed.error), {
        kind: 'invalid-message',
        level: 'warn',
        ...(typeof value?.method === 'string' ? { method: value.method } : {}),
        notification: parsed.silent,
      });
      return undefined;
    }
    return serializeError(parsed.id, parsed.error, parsed.rawId);
  }

  function answerResponse(parsed: ParsedResponse, scope: Scope): string | undefined {
    if (scope.session !== undefined) {
      scope.session.respond(parsed.message);
      return undefined;
    }
    // A stateless exchange has no requests of its own to correlate a response with.
    return serializeError(
      parsed.message.id,
      new InvalidRequestError('Invalid Request: a response cannot be answered').toErrorObject(),
      parsed.rawId,
    );
  }

  function answerMessage(parsed: ParsedMessage, scope: Scope): Answer {
    switch (parsed.kind) {
      case 'request':
        return answerRequest(parsed, scope);
      case 'notification':
        return runNotification(parsed, scope);
      case 'response':
        return answerResponse(parsed, scope);
      default:
        return answerInvalid(parsed, scope);
    }
  }

  const batchOptions: BatchOptions<ParsedMessage, Scope> = {
    maxBatchSize: config.maxBatchSize,
    concurrency: config.batchConcurrency,
    answer: answerMessage,
  };

  return {
    answer(parsed, scope) {
      return parsed.kind === 'batch'
        ? answerBatch(parsed.messages, scope, batchOptions)
        : answerMessage(parsed, scope);
    },
    run,
    errorObject,
    notificationFailed,
  };
}
