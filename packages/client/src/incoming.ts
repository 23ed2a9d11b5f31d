/**
 * Answers the requests and delivers the notifications the other side sends on a duplex
 * connection, and honours the other side's cancellation of those requests.
 *
 * @module
 */
import {
  type CancellationProtocol,
  ErrorCode,
  type ErrorInfo,
  fromErrorObject,
  type IncomingContext,
  type IncomingNotificationHandler,
  type IncomingRequestHandler,
  isJsonRpcError,
  isPromiseLike,
  type JsonRpcErrorObject,
  type JsonRpcId,
  type JsonRpcNotification,
  type JsonRpcParams,
  type JsonRpcRequest,
  type Peer,
  serializeError,
  serializeSuccess,
  type TransportContext,
  UNSERIALIZABLE_RESULT,
} from '@jsonrpc-kit/core';

const METHOD_NOT_FOUND: JsonRpcErrorObject = Object.freeze({
  code: ErrorCode.MethodNotFound,
  message: 'Method not found',
});
const INTERNAL_ERROR: JsonRpcErrorObject = Object.freeze({
  code: ErrorCode.InternalError,
  message: 'Internal error',
});
const NO_TRANSPORT_FACTS: TransportContext = Object.freeze({});

function asError(error: unknown): Error {
  return error instanceof Error ? error : new Error(String(error));
}

/**
 * Receives an answer that was not ready at once: the answer text, or `undefined` when the request
 * gets no answer (cancelled under a protocol with `answer: false`).
 */
export type AnswerSink = (answer: string | undefined) => void;

/** Aborts a request's context; `false` when it had finished already. */
let finishContext: (ctx: RequestContext, reason?: unknown) => boolean;

/**
 * The context of one incoming request. Its `signal` is made on first read: a handler that never
 * reads it costs no `AbortController`.
 */
class RequestContext implements IncomingContext {
  readonly peer: Peer;
  readonly transport: TransportContext;
  readonly #life: AbortSignal;
  #controller: AbortController | undefined = undefined;
  #done = false;
  #reason: unknown = undefined;

  constructor(peer: Peer, life: AbortSignal) {
    this.peer = peer;
    this.transport = NO_TRANSPORT_FACTS;
    this.#life = life;
  }

  /** Aborted when the other side cancels this request, or the connection closes. */
  get signal(): AbortSignal {
    const controller = this.#controller;
    if (controller !== undefined) return controller.signal;
    // Answered already: nothing can cancel it any more, only the connection can close.
    if (this.#done && this.#reason === undefined) return this.#life;
    const made = (this.#controller = new AbortController());
    if (this.#reason !== undefined) made.abort(this.#reason);
    else if (this.#life.aborted) made.abort(this.#life.reason);
    return made.signal;
  }

  static {
    finishContext = (ctx, reason) => {
      if (ctx.#done) return false;
      ctx.#done = true;
      if (reason !== undefined) {
        ctx.#reason = reason;
        ctx.#controller?.abort(reason);
      }
      return true;
    };
  }
}

/** Answers incoming requests and delivers incoming notifications. Internal. */
export interface Incoming {
  /**
   * Answers a request.
   *
   * @returns the answer text when it is ready at once; `undefined` when it goes to `sink` later
   */
  request(message: JsonRpcRequest, rawId: string | undefined, sink: AnswerSink): string | undefined;
  /** Delivers a notification (or applies a cancellation); failures are reported. */
  notification(message: JsonRpcNotification): void;
  /**
   * The connection closed: aborts the signal of every request still running, whose answers are
   * then dropped.
   *
   * @param reason - the close reason
   */
  closeAll(reason: unknown): void;
}

/** Options of {@link createIncoming}. */
export interface IncomingOptions {
  /** The request handler, or `undefined` to answer -32601. */
  readonly onRequest: IncomingRequestHandler | undefined;
  /** The notification handler. */
  readonly onNotification: IncomingNotificationHandler | undefined;
  /** How the other side cancels its requests. */
  readonly cancellation: CancellationProtocol;
  /** The client, as the peer handlers call back. */
  readonly peer: Peer;
  /** Aborted when the client closes. */
  readonly life: AbortSignal;
  /** Where failures of handlers go. */
  readonly report: (error: Error, info: ErrorInfo) => void;
}

/** A request whose handler has not settled yet. */
interface Running {
  readonly ctx: RequestContext;
  readonly id: JsonRpcId;
  readonly rawId: string | undefined;
  readonly sink: AnswerSink;
  /** Its slot in the running list. */
  index: number;
}

/**
 * Builds the incoming side of a client.
 *
 * @param options - handlers, the cancellation protocol, the peer and the client's life signal
 * @returns the incoming side
 */
export function createIncoming(options: IncomingOptions): Incoming {
  const { onRequest, onNotification, cancellation, peer, life, report } = options;
  const cancelMethod = cancellation.method;
  const cancelAnswers = cancellation.answer !== false;
  const cancelled: JsonRpcErrorObject = Object.freeze({
    code: cancellation.code,
    message: 'Request cancelled',
  });
  const notificationContext: IncomingContext = Object.freeze({
    signal: life,
    peer,
    transport: NO_TRANSPORT_FACTS,
  });
  /**
   * Requests whose handler has not settled yet: what a cancellation can reach. A list with
   * swap-removal: adding and removing are the hot path. Finding one by id is the rare path: the
   * index by id is built on the first cancellation and kept from then on.
   */
  const running: Running[] = [];
  let byId: Map<JsonRpcId, Running> | undefined;

  const track = (entry: Running): void => {
    running.push(entry);
    byId?.set(entry.id, entry);
  };

  const untrack = (entry: Running): void => {
    const last = running.pop()!;
    if (last !== entry) {
      running[entry.index] = last;
      last.index = entry.index;
    }
    if (byId !== undefined && byId.get(entry.id) === entry) byId.delete(entry.id);
  };

  /** The running request with this id (the latest, when the other side reused an id). */
  const find = (id: JsonRpcId): Running | undefined => {
    if (byId === undefined) {
      byId = new Map();
      // A peer that reuses an id while the first is running breaks the spec: one of them wins.
      for (const entry of running) byId.set(entry.id, entry);
    }
    return byId.get(id);
  };

  const errorAnswer = (
    { id, method }: JsonRpcRequest,
    rawId: string | undefined,
    error: unknown,
  ): string => {
    // A code that is not an integer cannot go on the wire: answered -32603, reported.
    if (isJsonRpcError(error) && Number.isInteger(error.code)) {
      return serializeError(id, error.toErrorObject(), rawId);
    }
    report(asError(error), { kind: 'handler-failed', level: 'error', method, id });
    return serializeError(id, INTERNAL_ERROR, rawId);
  };

  const successAnswer = (
    { id, method }: JsonRpcRequest,
    rawId: string | undefined,
    result: unknown,
  ): string => {
    try {
      return serializeSuccess(id, result, rawId);
    } catch (error) {
      report(asError(error), { kind: 'unserializable-result', level: 'error', method, id });
      return serializeError(id, UNSERIALIZABLE_RESULT, rawId);
    }
  };

  /** Marks a running request settled; `false` when it was cancelled (or closed) meanwhile. */
  const settle = (entry: Running): boolean => {
    if (!finishContext(entry.ctx)) return false;
    untrack(entry);
    return true;
  };

  const onIncomingRequest = (
    message: JsonRpcRequest,
    rawId: string | undefined,
    sink: AnswerSink,
  ): string | undefined => {
    const id = message.id;
    if (onRequest === undefined) return serializeError(id, METHOD_NOT_FOUND, rawId);
    const ctx = new RequestContext(peer, life);
    let result: unknown;
    try {
      result = onRequest(message, ctx);
    } catch (error) {
      finishContext(ctx);
      return errorAnswer(message, rawId, error);
    }
    if (!isPromiseLike(result)) {
      finishContext(ctx);
      return successAnswer(message, rawId, result);
    }
    const entry: Running = { ctx, id, rawId, sink, index: running.length };
    track(entry);
    Promise.resolve(result).then(
      (value) => {
        if (settle(entry)) sink(successAnswer(message, rawId, value));
      },
      (error: unknown) => {
        if (settle(entry)) sink(errorAnswer(message, rawId, error));
      },
    );
    return undefined;
  };

  /** The other side cancelled one of its requests: abort it and answer it now (or never). */
  const cancel = (params: JsonRpcParams | undefined): void => {
    if (running.length === 0) return;
    let id: JsonRpcId | undefined;
    try {
      id = cancellation.fromParams(params);
    } catch (error) {
      report(asError(error), { kind: 'invalid-message', level: 'warn', method: cancelMethod });
      return;
    }
    if (id === undefined) return;
    const entry = find(id);
    if (entry === undefined) return; // unknown, or answered already
    untrack(entry);
    finishContext(entry.ctx, fromErrorObject(cancelled, { id: entry.id }));
    entry.sink(cancelAnswers ? serializeError(entry.id, cancelled, entry.rawId) : undefined);
  };

  const onIncomingNotification = (message: JsonRpcNotification): void => {
    if (message.method === cancelMethod) {
      cancel(message.params);
      return;
    }
    if (onNotification === undefined) return;
    const failed = (error: unknown): void =>
      report(asError(error), {
        kind: 'notification-failed',
        level: isJsonRpcError(error) ? 'warn' : 'error',
        method: message.method,
      });
    try {
      const result = onNotification(message, notificationContext);
      if (isPromiseLike(result)) Promise.resolve(result).then(undefined, failed);
    } catch (error) {
      failed(error);
    }
  };

  const closeAll = (reason: unknown): void => {
    if (running.length === 0) return;
    const entries = running.splice(0);
    byId?.clear();
    for (const entry of entries) finishContext(entry.ctx, reason);
  };

  return { request: onIncomingRequest, notification: onIncomingNotification, closeAll };
}
