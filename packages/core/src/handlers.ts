/**
 * A session's dispatch for two plain handlers (`onRequest`, `onNotification`): how a client
 * serves the calls the other side makes, as LSP peers do. Requests run through the session's
 * incoming-call table, so the profile's cancel notice reaches them.
 *
 * @module
 */

import { withDecodedParams } from './codec.js';
import type {
  IncomingContext,
  IncomingNotificationHandler,
  IncomingRequestHandler,
  Peer,
  TransportContext,
} from './endpoint.js';
import { ErrorCode, isJsonRpcError, ProtocolError } from './errors.js';
import type { IncomingCall } from './incoming.js';
import type { JsonRpc1 } from './jsonrpc1.js';
import type {
  JsonRpcErrorObject,
  JsonRpcId,
  JsonRpcNotification,
  JsonRpcRequest,
  JsonRpcResponse,
} from './messages.js';
import type { ParsedBatch, ParsedInvalid, ParsedMessage, ParsedRequest } from './parse.js';
import type { ProgressReporter } from './protocols.js';
import type { ErrorInfo } from './report.js';
import { serializeError, serializeSuccess, UNSERIALIZABLE_RESULT } from './serialize.js';
import type { Session, SessionAnswer, SessionDispatch } from './session.js';
import { isPromiseLike } from './thenable.js';
import { toError } from './to-error.js';

const METHOD_NOT_FOUND: JsonRpcErrorObject = Object.freeze({
  code: ErrorCode.MethodNotFound,
  message: 'Method not found',
});
const INTERNAL_ERROR: JsonRpcErrorObject = Object.freeze({
  code: ErrorCode.InternalError,
  message: 'Internal error',
});
const INVALID: ErrorInfo = Object.freeze({ kind: 'invalid-message', level: 'warn' });
const NO_TRANSPORT_FACTS: TransportContext = Object.freeze({});

/**
 * One incoming request: its context for the handler, and its entry in the incoming-call table.
 * Its `signal` is made on first read: a handler that never reads it costs no `AbortController`.
 */
class RunningRequest implements IncomingContext, IncomingCall {
  readonly id: JsonRpcId;
  readonly rawId: string | undefined;
  readonly peer: Peer;
  readonly transport: TransportContext;
  /** Receives the answer once it is ready (or `undefined` when it gets none). */
  sink: ((answer: string | undefined) => void) | undefined = undefined;
  done = false;
  #life: AbortSignal;
  #session: Session;
  #params: unknown;
  #controller: AbortController | undefined = undefined;
  #reason: unknown = undefined;
  #progress: ProgressReporter<any> | undefined | null = null;

  constructor(parsed: ParsedRequest, peer: Peer, session: Session) {
    this.id = parsed.message.id;
    this.rawId = parsed.rawId;
    this.peer = peer;
    this.transport = NO_TRANSPORT_FACTS;
    this.#life = session.signal;
    this.#session = session;
    this.#params = parsed.message.params;
  }

  /** Aborted when the other side cancels this request, or the session closes. */
  get signal(): AbortSignal {
    const controller = this.#controller;
    if (controller !== undefined) return controller.signal;
    // Answered already: nothing can cancel it any more, only the session can close.
    if (this.done && this.#reason === undefined) return this.#life;
    const made = (this.#controller = new AbortController());
    if (this.#reason !== undefined) made.abort(this.#reason);
    else if (this.#life.aborted) made.abort(this.#life.reason);
    return made.signal;
  }

  /** Reports progress to the caller; `undefined` when the caller sent no progress token. */
  get progress(): ProgressReporter<any> | undefined {
    if (this.#progress === null) {
      this.#progress = this.#session.progressFor(this.#params, () => !this.done);
    }
    return this.#progress;
  }

  abort(reason: unknown): void {
    if (this.done) return;
    this.done = true;
    this.#reason = reason;
    this.#controller?.abort(reason);
    const sink = this.sink;
    if (sink === undefined) return;
    this.sink = undefined;
    const session = this.#session;
    sink(
      session.incoming.unanswered(reason) || !isJsonRpcError(reason)
        ? undefined
        : serializeError(this.id, reason.toErrorObject(), this.rawId),
    );
  }
}

/** Options of {@link createHandlerDispatch}. */
export interface HandlerDispatchOptions {
  /** Answers requests; `undefined` answers -32601. */
  readonly onRequest?: IncomingRequestHandler | undefined;
  /** Receives notifications; `undefined` ignores them. */
  readonly onNotification?: IncomingNotificationHandler | undefined;
  /** The side handlers call back (the client). */
  readonly peer: Peer;
  /** Where failures go. */
  readonly report: (error: Error, info: ErrorInfo) => void;
  /**
   * Learns, before any member of a batch is settled, what the batch tells about the call(s) an
   * id-null error in it belongs to; passed on to the session's `onNullIdError`.
   */
  readonly batchHint?: ((batch: ParsedBatch) => unknown) | undefined;
  /**
   * Decodes the params of incoming requests before `onRequest` sees them (a codec's `decode`;
   * notifications are left to their handler). @default none
   */
  readonly decode?: ((value: unknown) => unknown) | undefined;
  /** How answers are written: a codec's writer for results, JSON-RPC 1.0. @default plain 2.0 */
  readonly answer?: AnswerOptions | undefined;
}

/**
 * Makes a session's dispatch that answers with plain handlers. Invalid answers reject the call
 * they name; invalid requests with an id are answered with the parser's error.
 *
 * @param session - the session
 * @param options - the handlers, the peer and the error hook
 * @returns the dispatch to pass to `session.start`
 * @example
 * ```ts
 * const session = createSession(transport, { report: console.warn });
 * session.start(createHandlerDispatch(session, { onRequest: () => 'pong', peer, report: console.warn }));
 * ```
 */
export function createHandlerDispatch(
  session: Session,
  options: HandlerDispatchOptions,
): SessionDispatch {
  const { onRequest, onNotification, peer, report, decode, answer } = options;
  const writeError = answer?.jsonrpc1?.serializeError ?? serializeError;

  const notificationContext: IncomingContext = Object.freeze({
    signal: session.signal,
    peer,
    transport: NO_TRANSPORT_FACTS,
    progress: undefined,
  });

  const errorAnswer = (message: JsonRpcRequest, rawId: string | undefined, error: unknown) => {
    // A code that is not an integer cannot go on the wire: answered -32603, reported.
    if (isJsonRpcError(error) && Number.isInteger(error.code)) {
      return writeError(message.id, error.toErrorObject(), rawId);
    }
    report(toError(error), {
      kind: 'handler-failed',
      level: 'error',
      method: message.method,
      id: message.id,
    });
    return writeError(message.id, INTERNAL_ERROR, rawId);
  };

  const successAnswer = (message: JsonRpcRequest, rawId: string | undefined, result: unknown) =>
    answerResult(message, rawId, result, report, answer);

  const request = (parsed: ParsedRequest): SessionAnswer => {
    const { message, rawId } = parsed;
    if (onRequest === undefined) return writeError(message.id, METHOD_NOT_FOUND, rawId);
    const ctx = new RunningRequest(parsed, peer, session);
    let result: unknown;
    try {
      result = onRequest(withDecodedParams(message, decode), ctx);
    } catch (error) {
      ctx.done = true;
      return errorAnswer(message, rawId, error);
    }
    if (!isPromiseLike(result)) {
      ctx.done = true;
      return successAnswer(message, rawId, result);
    }
    const incoming = session.incoming;
    incoming.track(ctx);
    return new Promise<string | undefined>((resolve) => {
      ctx.sink = resolve;
      const settle = (make: () => string): void => {
        if (ctx.done) return; // cancelled (answered already, or not at all) or closed
        ctx.done = true;
        ctx.sink = undefined;
        incoming.untrack(ctx);
        resolve(make());
      };
      Promise.resolve(result).then(
        (value) => settle(() => successAnswer(message, rawId, value)),
        (error: unknown) => settle(() => errorAnswer(message, rawId, error)),
      );
    });
  };

  const notification = (message: JsonRpcNotification): void => {
    if (onNotification === undefined) return;
    const method = message.method;
    const failed = (error: unknown): void =>
      report(toError(error), {
        kind: 'notification-failed',
        level: isJsonRpcError(error) ? 'warn' : 'error',
        method,
      });
    try {
      const result = onNotification(message, notificationContext);
      if (isPromiseLike(result)) Promise.resolve(result).then(undefined, failed);
    } catch (error) {
      failed(error);
    }
  };

  /** Returns an answer to send, for an invalid request that has an id. */
  const invalid = (parsed: ParsedInvalid, text: string): string | undefined => {
    if (parsed.error.code === ErrorCode.ParseError) {
      report(new ProtocolError('Received text that is not JSON', text), INVALID);
      return undefined;
    }
    const value = parsed.value;
    const isObject = typeof value === 'object' && value !== null && !Array.isArray(value);
    if (isObject && 'method' in value) {
      report(
        new ProtocolError('Received an invalid request', value),
        typeof value.method === 'string' ? { ...INVALID, method: value.method } : INVALID,
      );
      return !parsed.silent && 'id' in value
        ? serializeError(parsed.id, parsed.error, parsed.rawId)
        : undefined;
    }
    const id = parsed.id;
    const method = id === null ? undefined : session.pending.get(id)?.method;
    // What is wrong, naming the response check that refused it.
    const rule = parsed.rule;
    const message = parsed.error.message;
    const reason = message.startsWith('Invalid response: ') ? message.slice(18) : undefined;
    let what = 'Received an invalid answer';
    if (reason !== undefined) what += `: ${reason}`;
    if (rule !== undefined && reason?.includes(rule) !== true) {
      what += reason === undefined ? `: it breaks ${rule}` : ` (${rule})`;
    }
    if (method !== undefined) {
      const error = new ProtocolError(what, value, { method, id, rule });
      session.reject(id, error);
      report(error, { ...INVALID, method, id });
    } else if (!(id !== null && session.gaveUp(id))) {
      report(new ProtocolError(what, value, { rule }), INVALID);
    }
    return undefined;
  };

  const one = (parsed: ParsedMessage, text: string): SessionAnswer => {
    switch (parsed.kind) {
      case 'response':
        session.respond(parsed.message);
        return undefined;
      case 'request':
        return session.isClosed ? undefined : request(parsed);
      case 'notification':
        if (!session.consume(parsed.message)) {
          notification(parsed.message);
        }
        return undefined;
      default:
        return invalid(parsed, text);
    }
  };

  return (parsed, text) => {
    if (parsed.kind !== 'batch') return one(parsed, text);
    let answers: SessionAnswer[] | undefined;
    let nullErrors: JsonRpcResponse[] | undefined;
    let hint: unknown;
    for (const member of parsed.messages) {
      if (member.kind === 'response') {
        const response = member.message;
        // Settle the answered members first, then fail what is left of the exchange.
        if (response.id === null && 'error' in response) {
          if (nullErrors === undefined) hint = options.batchHint?.(parsed);
          (nullErrors ??= []).push(response);
        } else session.respond(response);
        continue;
      }
      const answer = one(member, text);
      if (answer !== undefined) (answers ??= []).push(answer);
    }
    if (nullErrors !== undefined)
      for (const response of nullErrors) session.respond(response, hint);
    if (answers === undefined) return undefined;
    return Promise.all(answers).then(joinAnswers);
  };
}

/** Options of {@link answerResult}. */
export interface AnswerOptions {
  /**
   * Writes the result (a codec's writer, see `jsonWriterOf`); it throws, or returns `undefined`,
   * for a value it cannot write.
   * @default JSON.stringify
   */
  readonly write?: ((value: unknown) => string | undefined) | undefined;
  /**
   * Core's `jsonrpc1`: answer in JSON-RPC 1.0 form (`result` beside `"error": null`), for a
   * request read as 1.0.
   * @default undefined (2.0)
   */
  readonly jsonrpc1?: JsonRpc1 | undefined;
}

/**
 * The answer to a request whose handler returned `result`: a success, or, when JSON cannot hold
 * the result (a cycle, a BigInt without a codec), -32603 with the failure reported as
 * `unserializable-result`.
 *
 * @param request - the request answered
 * @param rawId - its id's source text, when the parser kept it
 * @param result - what the handler returned
 * @param report - where the serialization failure goes
 * @param options - the result's writer and the answer's version
 * @returns the answer text
 * @example
 * ```ts
 * answerResult({ jsonrpc: '2.0', id: 1, method: 'm' }, undefined, 3, console.warn);
 * // '{"jsonrpc":"2.0","id":1,"result":3}'
 * answerResult({ jsonrpc: '2.0', id: 1, method: 'm' }, undefined, 3, console.warn, { jsonrpc1 });
 * // '{"id":1,"result":3,"error":null}'
 * ```
 */
export function answerResult(
  request: JsonRpcRequest,
  rawId: string | undefined,
  result: unknown,
  report: (error: Error, info: ErrorInfo) => void,
  options?: AnswerOptions,
): string {
  const jsonrpc1 = options?.jsonrpc1;
  try {
    if (options === undefined) return serializeSuccess(request.id, result, rawId);
    return (jsonrpc1?.serializeSuccess ?? serializeSuccess)(
      request.id,
      result,
      rawId,
      options.write,
    );
  } catch (error) {
    report(toError(error), {
      kind: 'unserializable-result',
      level: 'error',
      method: request.method,
      id: request.id,
    });
    return (jsonrpc1?.serializeError ?? serializeError)(request.id, UNSERIALIZABLE_RESULT, rawId);
  }
}

/**
 * Joins the answers of a batch's members into one JSON array; members without an answer have no
 * slot. O(total length).
 *
 * @param parts - the members' answers, in order
 * @returns the array text, or `undefined` when no member has an answer
 * @example
 * ```ts
 * joinAnswers(['{"jsonrpc":"2.0","id":1,"result":1}', undefined]);
 * // '[{"jsonrpc":"2.0","id":1,"result":1}]'
 * ```
 */
export function joinAnswers(parts: readonly (string | undefined)[]): string | undefined {
  let text: string | undefined;
  for (let i = 0; i < parts.length; i++) {
    const part = parts[i];
    if (part !== undefined) text = text === undefined ? '[' + part : text + ',' + part;
  }
  return text === undefined ? undefined : text + ']';
}
