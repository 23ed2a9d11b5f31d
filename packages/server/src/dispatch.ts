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
  type ParseOptions,
  type ParseResult,
  type Peer,
  parse,
  RequestTimeoutError,
  ServerBusyError,
  type StandardSchemaResult,
  serializeError,
  serializeError1,
  serializeSuccess,
  serializeSuccess1,
  type TransportContext,
  UNSERIALIZABLE_RESULT,
} from '@jsonrpc-kit/core';
import { type Answer, answerBatch, type BatchOptions } from './batch.js';
import { Call, type SignalSource } from './call.js';
import {
  canWait,
  forget,
  hasRoom,
  type Lane,
  type Limiter,
  laneOf,
  release,
  wait,
} from './limiter.js';
import { arrangeParams, type Entry } from './registry.js';
import type { ErrorInfo, Middleware } from './types.js';

/** Where a message is answered: one `handle()` exchange, or one connection. */
export interface Scope {
  readonly transport: TransportContext;
  readonly peer: Peer | undefined;
  readonly limiter: Limiter;
  /** The client the scope's calls are counted for in a fair limiter; `undefined` for none. */
  readonly client: string | undefined;
  /** The requests running on a connection, by id, for cancellation; `undefined` for `handle()`. */
  readonly running: Map<JsonRpcId, Call> | undefined;
  /** Every call (requests and notifications) running on a connection, to abort on close. */
  readonly calls: Set<Call> | undefined;
  /** Takes a response to the connection's own requests; `undefined` for `handle()`. */
  readonly onResponse: ((parsed: ParsedResponse) => void) | undefined;
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
  readonly cancelMethod: string | undefined;
  readonly cancelCode: number;
  /** `false` when a cancelled request gets no answer (MCP). */
  readonly cancelAnswer: boolean;
  readonly cancelFromParams: ((params: any) => JsonRpcId | undefined) | undefined;
  readonly report: (error: unknown, info: ErrorInfo) => void;
  /** The server's policies: codec, JSON-RPC 1.0, params-violation code, error mapping, batches. */
  readonly policies: Policies;
}

/** The server's policies, as the dispatcher needs them (see `ServerOptions`). */
export interface Policies {
  /** How text is read (a codec's reader, JSON-RPC 1.0); `undefined`: plain `parse`. */
  readonly parseOptions: ParseOptions | undefined;
  /** Decodes params before name mapping and validation. */
  readonly decode: ((value: unknown) => unknown) | undefined;
  /** Writes results (encoded by the codec). */
  readonly write: ((value: unknown) => string | undefined) | undefined;
  /** The code for params that are neither an array nor an object: -32602 or -32600. */
  readonly paramsViolationCode: number;
  /** Maps a thrown value that is not a `JsonRpcError` to an error object. */
  readonly errorHandler: ErrorHandler | undefined;
  /** `false`: a batch is answered with one -32600. */
  readonly batches: boolean;
}

/** Maps a handler's failure to the error object to answer; `undefined` keeps the default -32603. */
export type ErrorHandler = (
  error: unknown,
  call: { readonly method: string; readonly id: JsonRpcId },
) => JsonRpcErrorObject | undefined;

/** What the dispatcher offers the server. */
export interface Dispatcher {
  /** Answers one parse result: a string, `undefined` (nothing to answer), or a promise of either. */
  answer(parsed: ParseResult, scope: Scope): Answer;
  /**
   * Parses one text and answers it. A batch over `maxBatchSize` is refused before any member is
   * classified, so its cost is the `JSON.parse` alone.
   */
  answerText(text: string, scope: Scope): Answer;
  /** Parses one text with the server's limits (a batch over `maxBatchSize` is refused unread). */
  parse(text: string): ParseResult;
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

const BATCHES_REFUSED: string = serializeError(
  null,
  new InvalidRequestError('Invalid Request: this server does not accept batches').toErrorObject(),
);

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
  const { decode, write, errorHandler, paramsViolationCode } = config.policies;
  const defaultTimeout = config.timeout;
  /** Cancellation reasons whose request gets no answer (protocols with `answer: false`). */
  const unanswered = new WeakSet<object>();

  /** Innermost step: lookup, name mapping, validation, handler. */
  function invoke(call: Call): unknown {
    const entry = methods.get(call.method);
    // A request to a notification handler gets nothing it could answer with: as if not there.
    if (entry === undefined || (entry.kind === 'notification' && !call.notification)) {
      throw new MethodNotFoundError();
    }
    let params = arrangeParams(entry, decode === undefined ? call.params : decode(call.params));
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

  function chain(call: Call, list: readonly Middleware[]): Promise<unknown> {
    let last = -1;
    const step = (i: number): Promise<unknown> => {
      if (i <= last) return Promise.reject(new Error('next() called more than once'));
      last = i;
      try {
        return Promise.resolve(
          i === list.length ? invoke(call) : list[i]!(call, () => step(i + 1)),
        );
      } catch (error) {
        return Promise.reject(error);
      }
    };
    return step(0);
  }

  /** Runs a call's chain (sync when possible); throws or rejects with what the call failed with. */
  function start(call: Call): unknown {
    if (call.aborted) throw call.abortReason;
    const list = currentMiddleware();
    return list.length === 0 ? invoke(call) : chain(call, list);
  }

  /** Takes a slot (or queues for one), runs the call, frees the slot when the handler settles. */
  function limited(call: Call, limiter: Limiter, lane: Lane | undefined): unknown {
    if (hasRoom(limiter, lane)) {
      limiter.active++;
      if (lane !== undefined) lane.active++;
      let result: unknown;
      try {
        result = start(call);
      } catch (error) {
        release(limiter, lane);
        throw error;
      }
      if (!isPromiseLike(result)) {
        release(limiter, lane);
        return result;
      }
      return result.then(
        (value) => {
          release(limiter, lane);
          return value;
        },
        (error: unknown) => {
          release(limiter, lane);
          throw error;
        },
      );
    }
    if (!canWait(limiter, lane)) {
      if (lane !== undefined) forget(limiter, lane);
      throw new ServerBusyError();
    }
    return new Promise((resolve, reject) => {
      wait(limiter, lane, () => {
        if (call.aborted) {
          if (lane !== undefined) forget(limiter, lane);
          reject(call.abortReason);
          return;
        }
        try {
          resolve(limited(call, limiter, lane));
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
    const limiter = scope.limiter;
    const client = scope.client;
    const result = limited(
      call,
      limiter,
      client === undefined || limiter.fair === undefined ? undefined : laneOf(limiter, client),
    );
    if (!isPromiseLike(result)) return result;
    const entry = methods.get(call.method);
    const timeout = entry?.timeout ?? defaultTimeout;
    if (timeout > 0 || scope.running !== undefined || scope.outer !== undefined) {
      return guard(call, result, timeout);
    }
    return result;
  }

  function errorObject(error: unknown, method: string, id: JsonRpcId): JsonRpcErrorObject {
    if (isJsonRpcError(error)) {
      if (Number.isInteger(error.code)) return error.toErrorObject();
      // A code the wire cannot carry: refused here, answered as an internal error.
      report(
        new TypeError(`A handler threw a JsonRpcError whose code ${error.code} is not an integer`, {
          cause: error,
        }),
        {
          kind: 'handler-failed',
          level: 'error',
          method,
          id,
          notification: false,
        },
      );
      return INTERNAL_ERROR;
    }
    if (!(error instanceof ConnectionClosedError)) {
      report(error, { kind: 'handler-failed', level: 'error', method, id, notification: false });
    }
    if (errorHandler !== undefined) {
      const mapped = mapError(error, method, id);
      if (mapped !== undefined) return mapped;
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

  /** The errorHandler's answer, when it gives a well-formed one; its throws are reported. */
  function mapError(error: unknown, method: string, id: JsonRpcId): JsonRpcErrorObject | undefined {
    let mapped: JsonRpcErrorObject | undefined;
    try {
      mapped = errorHandler!(error, { method, id });
    } catch (failure) {
      report(failure, { kind: 'handler-failed', level: 'error', method, id, notification: false });
      return undefined;
    }
    if (mapped === undefined) return undefined;
    if (!Number.isInteger(mapped.code) || typeof mapped.message !== 'string') {
      report(
        new TypeError(
          'errorHandler returned an error object without an integer code and a string message',
        ),
        {
          kind: 'handler-failed',
          level: 'error',
          method,
          id,
          notification: false,
        },
      );
      return undefined;
    }
    return mapped.data === undefined
      ? { code: mapped.code, message: mapped.message }
      : { code: mapped.code, message: mapped.message, data: mapped.data };
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
      return parsed.jsonrpc1 === true
        ? serializeSuccess1(parsed.message.id, result, parsed.rawId, write)
        : serializeSuccess(parsed.message.id, result, parsed.rawId, write);
    } catch (error) {
      report(error, {
        kind: 'unserializable-result',
        level: 'error',
        method: parsed.message.method,
        id: parsed.message.id,
        notification: false,
      });
      return (parsed.jsonrpc1 === true ? serializeError1 : serializeError)(
        parsed.message.id,
        UNSERIALIZABLE_RESULT,
        parsed.rawId,
      );
    }
  }

  function failure(parsed: ParsedRequest, call: Call, error: unknown): string | undefined {
    if (unanswered.has(error as object)) return undefined;
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
    );
    let result: unknown;
    try {
      result = run(call, scope);
    } catch (error) {
      return failure(parsed, call, error);
    }
    if (!isPromiseLike(result)) return success(parsed, result);
    const running = scope.running;
    if (running === undefined) {
      return (result as Promise<unknown>).then(
        (value) => success(parsed, value),
        (error: unknown) => failure(parsed, call, error),
      );
    }
    const calls = scope.calls!;
    running.set(message.id, call);
    calls.add(call);
    const untrack = (): void => {
      if (running.get(message.id) === call) running.delete(message.id);
      calls.delete(call);
    };
    return (result as Promise<unknown>).then(
      (value) => {
        untrack();
        return success(parsed, value);
      },
      (error: unknown) => {
        untrack();
        return failure(parsed, call, error);
      },
    );
  }

  function runNotification(
    parsed: ParsedNotification,
    scope: Scope,
  ): Promise<undefined> | undefined {
    const message = parsed.message;
    const method = message.method;
    if (method === config.cancelMethod) {
      if (scope.running !== undefined) {
        const id = config.cancelFromParams!(message.params);
        const target = id === undefined ? undefined : scope.running.get(id);
        if (target !== undefined) {
          const reason = fromErrorObject({ code: config.cancelCode, message: 'Request cancelled' });
          if (!config.cancelAnswer) unanswered.add(reason);
          target.abort(reason);
        }
        return undefined;
      }
      // Over handle() there is nothing to cancel across exchanges.
      if (!methods.has(method)) return undefined;
    }
    const call = new Call(
      undefined,
      method,
      message.params,
      scope.transport,
      scope.peer,
      scope.outer,
    );
    let result: unknown;
    try {
      result = run(call, scope);
    } catch (error) {
      notificationFailed(method, error);
      return undefined;
    }
    if (!isPromiseLike(result)) return undefined;
    const calls = scope.calls;
    calls?.add(call);
    return (result as Promise<unknown>).then(
      () => {
        calls?.delete(call);
        return undefined;
      },
      (error: unknown) => {
        calls?.delete(call);
        notificationFailed(method, error);
        return undefined;
      },
    );
  }

  function answerInvalid(parsed: ParsedInvalid, scope: Scope): string | undefined {
    if (parsed.silent || (parsed.response && scope.onResponse !== undefined)) {
      const value = parsed.value as { method?: unknown } | undefined;
      report(fromErrorObject(parsed.error), {
        kind: 'invalid-message',
        level: 'warn',
        ...(typeof value?.method === 'string' ? { method: value.method } : {}),
        notification: parsed.silent,
      });
      return undefined;
    }
    const error =
      parsed.error.code === ErrorCode.InvalidParams &&
      paramsViolationCode !== ErrorCode.InvalidParams
        ? {
            code: paramsViolationCode,
            message: 'Invalid Request: params must be an array or an object',
          }
        : parsed.error;
    return serializeError(parsed.id, error, parsed.rawId);
  }

  function answerResponse(parsed: ParsedResponse, scope: Scope): string | undefined {
    if (scope.onResponse !== undefined) {
      scope.onResponse(parsed);
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

  const batches = config.policies.batches;
  const parseOptions: ParseOptions = {
    // Refusing batches: any batch is refused unread (its cost is the JSON.parse alone).
    maxBatchSize: batches ? config.maxBatchSize : 0,
    ...config.policies.parseOptions,
  };
  const answer = (parsed: ParseResult, scope: Scope): Answer => {
    if (parsed.kind === 'batch') return answerBatch(parsed.messages, scope, batchOptions);
    if (!batches && parsed.kind === 'invalid' && Array.isArray(parsed.value)) {
      return parsed.value.length === 0 ? answerMessage(parsed, scope) : BATCHES_REFUSED;
    }
    return answerMessage(parsed, scope);
  };

  return {
    answer,
    answerText(text, scope) {
      return answer(parse(text, parseOptions), scope);
    },
    parse(text) {
      return parse(text, parseOptions);
    },
    run,
    errorObject,
    notificationFailed,
  };
}
