/**
 * The JSON-RPC client: requests, notifications, batches, contract proxies, timeouts,
 * cancellation and server-initiated calls over any {@link Transport}.
 *
 * @module
 */
import {
  AbortError,
  asyncDisposeSymbol,
  type CallInfo,
  type CancellationProtocol,
  ConnectionClosedError,
  type Contract,
  createPendingCalls,
  createReporter,
  defaultCancellation,
  ErrorCode,
  type ErrorInfo,
  formatIssues,
  fromErrorObject,
  type GiveUpReason,
  isJsonRpcError,
  isPromiseLike,
  type JsonRpcErrorObject,
  type JsonRpcId,
  type JsonRpcParams,
  type JsonRpcResponse,
  jsonWriterOf,
  LocalError,
  type ParsedInvalid,
  type ParsedMessage,
  type ParsedRequest,
  ProtocolError,
  parse,
  parseResponse,
  type RequestOptions,
  type StandardSchemaResult,
  type StandardSchemaV1,
  serializeError,
  serializeNotification,
  serializeNotification1,
  serializeRequest,
  serializeRequest1,
  type Transport,
  TransportError,
  validate,
} from '@jsonrpc-kit/core';
import { type BatchBuilder, type BatchEntry, type BatchResult, batchBuilder } from './batch.js';
import { createContractProxy, type UseOptions } from './contract-proxy.js';
import {
  DEFAULT_BATCH_MAX_SIZE,
  DEFAULT_BATCH_WAIT,
  DEFAULT_LATE_ANSWER_MEMORY,
  DEFAULT_TIMEOUT,
} from './defaults.js';
import { ResultValidationError } from './errors.js';
import { type AnswerSink, createIncoming, type Incoming } from './incoming.js';
import { createPromisifiedProxy, type ProxyOptions } from './proxy.js';
import { sendError } from './send-error.js';
import type { AutoBatchOptions, Client, ClientOptions } from './types.js';

/** The calls that went out in one message. */
interface Exchange {
  readonly ids: JsonRpcId[];
  readonly methods: string[];
  /** Serialized messages (for a batch still queued). */
  readonly texts: string[] | undefined;
  /** Calls still waiting. */
  live: number;
  /** Whether any call of it got an answer. */
  answered: boolean;
  /** Whether it has been handed to the transport. */
  sent: boolean;
  /** Aborts the send once every call gave up. */
  controller: AbortController | undefined;
  /** Settles the notifications queued in it. */
  notified: Deferred | undefined;
}

interface Deferred {
  readonly promise: Promise<void>;
  resolve(): void;
  reject(error: unknown): void;
}

/** Marks a notification among the queued ids. */
const NOTIFICATION: unique symbol = Symbol('notification');

function deferred(): Deferred {
  let resolve!: () => void;
  let reject!: (error: unknown) => void;
  const promise = new Promise<void>((res, rej) => {
    resolve = res;
    reject = rej;
  });
  return { promise, resolve, reject };
}

/** Refuses locally what must not reach the wire: a blank method name, params that are not structured. */
function checkCall(method: unknown, params: unknown): void {
  if (typeof method !== 'string' || method.trim().length === 0) {
    throw new TypeError(`A method name must be a non-blank string, got ${JSON.stringify(method)}`);
  }
  if (params !== undefined && (typeof params !== 'object' || params === null)) {
    throw new TypeError(
      `The params of "${method}" must be an array (by position) or an object (by name), got ${
        params === null ? 'null' : typeof params
      }`,
    );
  }
}

function autoBatchOptions(option: ClientOptions['batch']): AutoBatchOptions | undefined {
  if (option === undefined || option === false) return undefined;
  return option === true ? {} : option;
}

/**
 * Creates a client over a transport and starts the transport.
 *
 * @param transport - a transport, not yet started: the client becomes its only owner
 * @param options - timeout, ids, cancellation, auto-batching, incoming handlers, error hook
 * @returns the client
 * @throws RangeError when `batch.maxSize` is below 1 or `batch.wait` is negative
 * @example
 * ```ts
 * const client = createClient(transport, { timeout: 5_000, cancellation: true });
 * const sum = await client.request<number>('add', [1, 2]);
 * await client.notify('log', { message: 'done' });
 * const [a, b] = await client.batch((b) => [b.request<number>('add', [1, 2]), b.request('ping')]);
 * await client.close();
 * ```
 */
export function createClient(transport: Transport, options: ClientOptions = {}): Client {
  const pending = createPendingCalls();
  const defaultTimeout = options.timeout ?? DEFAULT_TIMEOUT;
  /** Whether the client's deadline was chosen (a send then aborts when it passes). */
  const explicitTimeout = options.timeout !== undefined;
  const userGenerateId = options.generateId;
  const generateId =
    userGenerateId === undefined
      ? undefined
      : (): JsonRpcId => {
          const id = userGenerateId();
          if (typeof id !== 'string' && !(typeof id === 'number' && Number.isFinite(id))) {
            throw new TypeError(
              `generateId must return a string or a finite number, got ${id === null ? 'null' : typeof id}`,
            );
          }
          return id;
        };
  const jsonrpc1 = options.jsonrpc1 === true;
  const write = jsonWriterOf(options.codec);
  /** The text of a request (checked first): 2.0, or 1.0 when the client speaks it. */
  const requestText = (
    id: JsonRpcId,
    method: string,
    params: JsonRpcParams | undefined,
  ): string => {
    checkCall(method, params);
    return jsonrpc1
      ? serializeRequest1(id, method, params as readonly unknown[] | undefined, write)
      : serializeRequest(id, method, params, write);
  };
  /** The text of a notification (checked first). */
  const notificationText = (method: string, params: JsonRpcParams | undefined): string => {
    checkCall(method, params);
    return jsonrpc1
      ? serializeNotification1(method, params as readonly unknown[] | undefined, write)
      : serializeNotification(method, params, write);
  };
  /** Reads what arrives: plain `parse`, or with the response checks, codec and 1.0 when set. */
  const read =
    options.codec === undefined && !jsonrpc1 && options.responseChecks === undefined
      ? parse
      : (text: string) =>
          parseResponse(text, { checks: options.responseChecks, codec: options.codec, jsonrpc1 });
  const cancellation: CancellationProtocol | undefined =
    options.cancellation === true
      ? defaultCancellation
      : options.cancellation === false
        ? undefined
        : options.cancellation;
  const auto = autoBatchOptions(options.batch);
  const batchWait = auto?.wait ?? DEFAULT_BATCH_WAIT;
  const batchMaxSize = auto?.maxSize ?? DEFAULT_BATCH_MAX_SIZE;
  if (auto !== undefined && !(batchMaxSize >= 1)) {
    throw new RangeError(`batch.maxSize must be at least 1, got ${batchMaxSize}`);
  }
  if (auto !== undefined && !(batchWait >= 0)) {
    throw new RangeError(`batch.wait must not be negative, got ${batchWait}`);
  }

  let nextId = 1;
  let closed = false;
  let started = false;
  /** Exchanges of batched calls and of calls that can give up, by id. */
  const exchanges = new Map<JsonRpcId, Exchange>();
  /** Ids of calls that gave up, oldest first, bounded. */
  const givenUp = new Set<JsonRpcId>();
  let queue: Exchange | undefined;
  let queueTimer: ReturnType<typeof setTimeout> | undefined;
  const life = new AbortController();
  let resolveClosed!: () => void;
  const closedPromise = new Promise<void>((resolve) => {
    resolveClosed = resolve;
  });

  const report = createReporter(options.onError, options.onErrorLevel);
  const asError = (error: unknown): Error =>
    error instanceof Error ? error : new TransportError(String(error));
  /** A transport's own trouble: non-fatal (warn), or it could not start (error). */
  const TRANSPORT_WARN: ErrorInfo = { kind: 'transport-error', level: 'warn' };
  const UNEXPECTED: ErrorInfo = { kind: 'unexpected-response', level: 'warn' };
  const INVALID: ErrorInfo = { kind: 'invalid-message', level: 'warn' };

  /** Set before the transport starts: nothing arrives earlier. */
  let incoming!: Incoming;

  // --- sending -------------------------------------------------------------------------------

  let startPromise: Promise<void>;
  let deferredSends = 0;
  const send = (text: string, signal?: AbortSignal): Promise<void> => {
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

  /** Sends without a caller waiting (answers, cancel notifications): failures are reported. */
  const sendDetached = (text: string): void => {
    if (closed) return;
    send(text).then(undefined, (error: unknown) =>
      report(asError(error), {
        kind: 'send-failed',
        level: error instanceof ConnectionClosedError ? 'debug' : 'warn',
      }),
    );
  };

  /** Sends the late answer of a single incoming request, if it gets one. */
  const sendAnswer: AnswerSink = (answer) => {
    if (answer !== undefined) sendDetached(answer);
  };

  /** Removes a call that left the pending map from its exchange. */
  const leaveExchange = (id: JsonRpcId, answered: boolean): Exchange | undefined => {
    const exchange = exchanges.get(id);
    if (exchange === undefined) return undefined;
    exchanges.delete(id);
    exchange.live--;
    if (answered) exchange.answered = true;
    return exchange;
  };

  const failExchange = (exchange: Exchange, error: unknown): void => {
    const { ids, methods } = exchange;
    for (let i = 0; i < ids.length; i++) {
      const id = ids[i]!;
      if (!pending.has(id)) continue;
      const method = methods[i]!;
      leaveExchange(id, false);
      pending.reject(id, sendError(error, { method, id }));
    }
    exchange.notified?.reject(sendError(error, {}));
  };

  const onGiveUp = (reason: GiveUpReason, id: JsonRpcId, method: string): void => {
    givenUp.add(id);
    if (givenUp.size > DEFAULT_LATE_ANSWER_MEMORY) {
      givenUp.delete(givenUp.values().next().value as JsonRpcId);
    }
    const exchange = leaveExchange(id, false);
    if (exchange !== undefined) {
      if (!exchange.sent) return; // still queued: it will not be sent, nothing to cancel
      if (exchange.live === 0 && !exchange.answered) exchange.controller?.abort();
    }
    if (cancellation !== undefined && !closed) {
      let text: string;
      try {
        text = serializeNotification(
          cancellation.method,
          cancellation.toParams(id, reason === 'timeout' ? 'timeout' : 'aborted'),
        );
      } catch (error) {
        report(asError(error), { kind: 'send-failed', level: 'error', method, id });
        return;
      }
      sendDetached(text);
    }
  };

  // --- auto-batching -------------------------------------------------------------------------

  const newExchange = (texts: string[] | undefined): Exchange => ({
    ids: [],
    methods: [],
    texts,
    live: 0,
    answered: false,
    sent: false,
    controller: undefined,
    notified: undefined,
  });

  const flush = (): void => {
    const exchange = queue;
    if (exchange === undefined) return;
    queue = undefined;
    if (queueTimer !== undefined) {
      clearTimeout(queueTimer);
      queueTimer = undefined;
    }
    exchange.sent = true;
    const { ids } = exchange;
    const texts = exchange.texts!;
    const out: string[] = [];
    for (let i = 0; i < ids.length; i++) {
      const id = ids[i]!;
      // Calls that gave up while queued are not sent.
      if (id === (NOTIFICATION as unknown) || pending.has(id)) out.push(texts[i]!);
    }
    if (out.length === 0) {
      exchange.notified?.resolve();
      return;
    }
    const text = out.length === 1 ? out[0]! : '[' + out.join(',') + ']';
    send(text, exchange.controller?.signal).then(
      () => exchange.notified?.resolve(),
      (error: unknown) => failExchange(exchange, error),
    );
  };

  const enqueue = (
    id: JsonRpcId | typeof NOTIFICATION,
    method: string,
    text: string,
    canGiveUp: boolean,
  ): Exchange => {
    let exchange = queue;
    if (exchange === undefined) {
      exchange = queue = newExchange([]);
      if (batchWait > 0) queueTimer = setTimeout(flush, batchWait);
      else {
        const scheduled = exchange;
        queueMicrotask(() => {
          if (queue === scheduled) flush();
        });
      }
    }
    exchange.ids.push(id as JsonRpcId);
    exchange.methods.push(method);
    exchange.texts!.push(text);
    if (id !== NOTIFICATION) {
      exchange.live++;
      exchanges.set(id as JsonRpcId, exchange);
      if (canGiveUp && exchange.controller === undefined)
        exchange.controller = new AbortController();
    }
    if (exchange.ids.length >= batchMaxSize) flush();
    return exchange;
  };

  // --- outgoing calls ------------------------------------------------------------------------

  const closedError = (method: string, id?: JsonRpcId): ConnectionClosedError =>
    new ConnectionClosedError(undefined, id === undefined ? { method } : { method, id });

  const request = (
    method: string,
    params: JsonRpcParams | undefined,
    requestOptions: RequestOptions | undefined,
    schema?: StandardSchemaV1,
  ): Promise<unknown> => {
    if (closed) return Promise.reject(closedError(method));
    let id: JsonRpcId;
    let text: string;
    try {
      id = generateId === undefined ? nextId++ : generateId();
      text = requestText(id, method, params);
    } catch (error) {
      return Promise.reject(error);
    }
    const signal = requestOptions?.signal;
    const timeout = requestOptions?.timeout ?? defaultTimeout;
    let promise: Promise<unknown>;
    if (signal === undefined && !(timeout > 0 && timeout < Number.POSITIVE_INFINITY)) {
      // The lean path: nothing can make this call give up on its own.
      try {
        promise = pending.add(id, method);
      } catch (error) {
        return Promise.reject(error);
      }
      if (auto !== undefined) enqueue(id, method, text, false);
      else {
        const callId = id;
        send(text).then(undefined, (error: unknown) => {
          if (pending.has(callId)) pending.reject(callId, sendError(error, { method, id: callId }));
        });
      }
      return schema === undefined ? promise : checked(promise, schema, method, id);
    }
    if (signal?.aborted) {
      return Promise.reject(new AbortError({ method, id, cause: signal.reason }));
    }
    try {
      promise = pending.add(id, method, { timeout, signal, onGiveUp });
    } catch (error) {
      return Promise.reject(error);
    }
    if (auto !== undefined) enqueue(id, method, text, true);
    else if (
      !(timeout > 0 && timeout < Number.POSITIVE_INFINITY) ||
      (signal === undefined && requestOptions?.timeout === undefined && !explicitTimeout)
    ) {
      // Only the caller's signal can make this call give up (it is the send signal too), or only
      // the default deadline, a safety net: it fails the call but leaves a send under way alone,
      // so the common call pays for no exchange and no AbortController.
      const callId = id;
      send(text, signal).then(undefined, (error: unknown) => {
        if (pending.has(callId)) pending.reject(callId, sendError(error, { method, id: callId }));
      });
    } else {
      const exchange = newExchange(undefined);
      exchange.ids.push(id);
      exchange.methods.push(method);
      exchange.live = 1;
      exchange.sent = true;
      exchange.controller = new AbortController();
      exchanges.set(id, exchange);
      send(text, exchange.controller.signal).then(undefined, (error: unknown) =>
        failExchange(exchange, error),
      );
    }
    return schema === undefined ? promise : checked(promise, schema, method, id);
  };

  const checkResult = (
    schema: StandardSchemaV1,
    value: unknown,
    call: CallInfo,
  ): unknown | Promise<unknown> => {
    const finish = (result: StandardSchemaResult<unknown>): unknown => {
      if (result.issues !== undefined) {
        throw new ResultValidationError(formatIssues(result.issues), value, call);
      }
      return result.value;
    };
    const verdict = validate(schema, value);
    return isPromiseLike(verdict) ? verdict.then(finish) : finish(verdict);
  };

  const checked = (
    promise: Promise<unknown>,
    schema: StandardSchemaV1,
    method: string,
    id: JsonRpcId,
  ): Promise<unknown> => promise.then((value) => checkResult(schema, value, { method, id }));

  const call = (
    method: string,
    params: JsonRpcParams | undefined,
    schema: StandardSchemaV1 | undefined,
  ): Promise<unknown> => request(method, params, undefined, schema);

  const notify = (method: string, params?: JsonRpcParams): Promise<void> => {
    if (closed) return Promise.reject(closedError(method));
    let text: string;
    try {
      text = notificationText(method, params);
    } catch (error) {
      return Promise.reject(error);
    }
    if (auto !== undefined) {
      const exchange = enqueue(NOTIFICATION, method, text, false);
      // A full queue was flushed by enqueue; its deferred is still the one to wait on.
      exchange.notified ??= deferred();
      return exchange.notified.promise;
    }
    return send(text).then(undefined, (error: unknown) => {
      throw sendError(error, { method });
    });
  };

  const batch = (
    build: (b: BatchBuilder) => readonly BatchEntry<any>[],
    batchOptions?: RequestOptions,
  ): Promise<BatchResult<unknown>[]> => {
    let entries: readonly BatchEntry<any>[];
    try {
      entries = build(batchBuilder);
    } catch (error) {
      return Promise.reject(error);
    }
    if (closed) return Promise.reject(closedError(entries[0]?.method ?? 'batch'));
    if (entries.length === 0) return Promise.resolve([]);
    const signal = batchOptions?.signal;
    if (signal?.aborted) return Promise.reject(new AbortError({ cause: signal.reason }));
    const timeout = batchOptions?.timeout ?? defaultTimeout;
    const canGiveUp = signal !== undefined || (timeout > 0 && timeout < Number.POSITIVE_INFINITY);
    const texts: string[] = [];
    const exchange = newExchange(undefined);
    try {
      for (const entry of entries) {
        if (entry.kind === 'notification') {
          texts.push(notificationText(entry.method, entry.params));
        } else {
          const id = generateId === undefined ? nextId++ : generateId();
          texts.push(requestText(id, entry.method, entry.params));
          exchange.ids.push(id);
          exchange.methods.push(entry.method);
        }
      }
    } catch (error) {
      return Promise.reject(error);
    }
    const { ids, methods } = exchange;
    const promises: Promise<BatchResult<unknown>>[] = [];
    const addOptions = canGiveUp ? { timeout, signal, onGiveUp } : undefined;
    for (let i = 0; i < ids.length; i++) {
      const id = ids[i]!;
      let promise: Promise<unknown>;
      try {
        promise = pending.add(id, methods[i]!, addOptions);
      } catch (error) {
        // A duplicate id from a custom generator: fail the calls registered so far.
        for (let j = 0; j < i; j++) pending.reject(ids[j]!, error as Error);
        for (let j = 0; j < i; j++) exchanges.delete(ids[j]!);
        return Promise.reject(error);
      }
      exchanges.set(id, exchange);
      exchange.live++;
      promises.push(
        promise.then(
          (value): BatchResult<unknown> => ({ ok: true, value }),
          (error: unknown): BatchResult<unknown> => ({
            ok: false,
            // Kit errors as they are; anything else becomes a TransportError naming the call.
            error:
              isJsonRpcError(error) || error instanceof LocalError
                ? error
                : sendError(error, { method: methods[i]!, id }),
          }),
        ),
      );
    }
    if (canGiveUp && ids.length > 0) exchange.controller = new AbortController();
    // Keep call order: whatever auto-batching holds goes first.
    flush();
    exchange.sent = true;
    const sent = send('[' + texts.join(',') + ']', exchange.controller?.signal);
    if (ids.length === 0) {
      return sent.then(
        () => [],
        (error: unknown) => {
          throw sendError(error, { method: entries[0]!.method });
        },
      );
    }
    sent.then(undefined, (error: unknown) => failExchange(exchange, error));
    return Promise.all(promises);
  };

  // --- incoming messages ---------------------------------------------------------------------

  /**
   * An id-null error that matches no single exchange while several calls wait: which call it
   * answers cannot be known, so every call that went out fails, each with a ProtocolError that
   * says why and carries the wire error as its `cause`. No call is left waiting for an answer
   * that will not come, and none fails without saying so. Calls still queued are not touched.
   */
  const failUnplaceable = (error: JsonRpcErrorObject, received: unknown): void => {
    const wire = fromErrorObject(error);
    const reason = `The peer answered an error with id null (${error.code} ${error.message}) that matches no single exchange; every call waiting on an answer fails`;
    report(new ProtocolError(reason, received, { cause: wire }), UNEXPECTED);
    for (const waiting of Array.from(pending.calls())) {
      if (exchanges.get(waiting.id)?.sent === false) continue;
      const { id, method } = waiting;
      leaveExchange(id, true);
      pending.reject(id, new ProtocolError(reason, received, { method, id, cause: wire }));
    }
  };

  /** An error answer with id null: find the call(s) it belongs to. */
  const failNullId = (
    error: JsonRpcErrorObject,
    hint: Exchange | undefined,
    received: unknown,
  ): void => {
    let exchange = hint;
    if (exchange === undefined) {
      if (pending.size === 0) {
        report(
          new ProtocolError('Received an error with id null while no call waits', received),
          UNEXPECTED,
        );
        return;
      }
      if (pending.size === 1) {
        const only = pending.calls().next().value!;
        if (exchanges.get(only.id)?.sent === false) {
          report(
            new ProtocolError('Received an error with id null while no call waits', received),
            UNEXPECTED,
          );
          return;
        }
        leaveExchange(only.id, true);
        pending.reject(only.id, fromErrorObject(error, only));
        return;
      }
      // Several calls wait: it belongs to an exchange only when they all went out together.
      for (const waiting of pending.calls()) {
        const of = exchanges.get(waiting.id);
        if (of === undefined || (exchange !== undefined && of !== exchange)) {
          exchange = undefined;
          break;
        }
        exchange = of;
      }
      if (exchange === undefined || !exchange.sent) {
        failUnplaceable(error, received);
        return;
      }
    }
    const { ids, methods } = exchange;
    for (let i = 0; i < ids.length; i++) {
      const id = ids[i]!;
      if (!pending.has(id)) continue;
      leaveExchange(id, true);
      pending.reject(id, fromErrorObject(error, { method: methods[i]!, id }));
    }
  };

  const onResponse = (response: JsonRpcResponse, hint: Exchange | undefined): void => {
    const id = response.id;
    if (pending.settle(response)) {
      if (exchanges.size !== 0) leaveExchange(id, true);
      return;
    }
    if (id === null && 'error' in response) {
      failNullId(response.error, hint, response);
      return;
    }
    if (givenUp.has(id)) return; // a late answer: the call already gave up
    report(
      new ProtocolError(
        `Received an answer for an unknown or already answered id ${JSON.stringify(id)}`,
        response,
      ),
      { kind: 'unexpected-response', level: 'warn', id },
    );
  };

  const methodOf = (id: JsonRpcId): string | undefined => {
    for (const waiting of pending.calls()) if (waiting.id === id) return waiting.method;
    return undefined;
  };

  /** Returns an answer to send, for an invalid request that has an id. */
  const onInvalid = (parsed: ParsedInvalid, text: string): string | undefined => {
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
    const method = id === null ? undefined : methodOf(id);
    if (method !== undefined) {
      const error = new ProtocolError('Received an invalid answer', value, { method, id });
      leaveExchange(id, true);
      pending.reject(id, error);
      report(error, { ...INVALID, method, id });
    } else if (!(id !== null && givenUp.has(id))) {
      report(new ProtocolError('Received an invalid answer', value), INVALID);
    }
    return undefined;
  };

  /**
   * Handles one message; returns an answer ready now. A request's answer that is not ready goes
   * to `sink` later.
   */
  const onOne = (
    parsed: ParsedMessage,
    text: string,
    hint: Exchange | undefined,
    sink: AnswerSink,
  ): string | undefined => {
    switch (parsed.kind) {
      case 'response':
        onResponse(parsed.message, hint);
        return undefined;
      case 'request':
        return closed ? undefined : incoming.request(parsed.message, parsed.rawId, sink);
      case 'notification':
        incoming.notification(parsed.message);
        return undefined;
      default:
        return onInvalid(parsed, text);
    }
  };

  const onMessage = (text: string): void => {
    if (closed) return;
    const parsed = read(text);
    if (parsed.kind !== 'batch') {
      const answer = onOne(parsed, text, undefined, sendAnswer);
      if (answer !== undefined) sendDetached(answer);
      return;
    }
    // A batch: find the exchange it answers (for id-null errors) before settling anything.
    const messages = parsed.messages;
    let hint: Exchange | undefined;
    if (exchanges.size !== 0) {
      for (const member of messages) {
        if (member.kind !== 'response' || member.message.id === null) continue;
        hint = exchanges.get(member.message.id);
        if (hint !== undefined) break;
      }
    }
    let answers: (string | Promise<string | undefined>)[] | undefined;
    let nullErrors: JsonRpcResponse[] | undefined;
    for (const member of messages) {
      if (member.kind === 'response' && member.message.id === null && 'error' in member.message) {
        // Settle the answered members first, then fail what is left of the exchange.
        (nullErrors ??= []).push(member.message);
        continue;
      }
      if (member.kind === 'request') {
        if (!closed) (answers ??= []).push(batchAnswer(member));
        continue;
      }
      const answer = onOne(member, text, hint, sendAnswer);
      if (answer !== undefined) (answers ??= []).push(answer);
    }
    if (nullErrors !== undefined) for (const response of nullErrors) onResponse(response, hint);
    if (answers === undefined) return;
    Promise.all(answers).then(sendBatchAnswer);
  };

  /** Answers one request of an incoming batch: the answer now, or a promise of it. */
  const batchAnswer = (member: ParsedRequest): string | Promise<string | undefined> => {
    let resolveLate: AnswerSink | undefined;
    const now = incoming.request(member.message, member.rawId, (answer) => resolveLate!(answer));
    return (
      now ??
      new Promise((resolve) => {
        resolveLate = resolve;
      })
    );
  };

  /** Sends the answers of an incoming batch; members that get no answer have no slot. */
  const sendBatchAnswer = (texts: (string | undefined)[]): void => {
    let out = '';
    for (const text of texts) {
      if (text === undefined) continue;
      out = out.length === 0 ? '[' + text : out + ',' + text;
    }
    if (out.length !== 0) sendDetached(out + ']');
  };

  // --- closing -------------------------------------------------------------------------------

  const failAllWaiting = (message: string | undefined, cause: unknown): void => {
    pending.rejectAll(
      (waiting) =>
        new ConnectionClosedError(message, {
          method: waiting.method,
          id: waiting.id,
          cause,
        }),
    );
    exchanges.clear();
  };

  const shutdown = (cause: unknown): void => {
    if (closed) return;
    closed = true;
    const exchange = queue;
    queue = undefined;
    if (queueTimer !== undefined) clearTimeout(queueTimer);
    exchange?.notified?.reject(new ConnectionClosedError(undefined, { cause }));
    failAllWaiting(undefined, cause);
    givenUp.clear();
    life.abort(cause ?? new ConnectionClosedError());
    incoming.closeAll(life.signal.reason);
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
        report(asError(error), TRANSPORT_WARN);
        return closedPromise;
      },
    );
  };

  const client: Client = {
    request: request as Client['request'],
    notify,
    batch: batch as Client['batch'],
    use: <C extends Contract>(contract: C, useOptions?: UseOptions) =>
      createContractProxy({ call, notify }, contract, useOptions),
    proxy: <T extends object>(proxyOptions?: ProxyOptions) =>
      createPromisifiedProxy<T>(
        (method, params) => request(method, params, undefined),
        proxyOptions,
      ),
    get pending() {
      return pending.size;
    },
    close,
    closed: closedPromise,
    [asyncDisposeSymbol]: () => close(),
  };

  incoming = createIncoming({
    onRequest: options.onRequest,
    onNotification: options.onNotification,
    // Listen for the configured protocol, else the kit's default (also when sending is off).
    cancellation:
      typeof options.cancellation === 'object' ? options.cancellation : defaultCancellation,
    peer: client,
    life: life.signal,
    report,
  });

  try {
    startPromise = transport
      .start({
        onMessage,
        onClose: (error?: Error) => shutdown(error),
        onError: (error: Error) => report(error, TRANSPORT_WARN),
        onDisconnect: (error?: Error) => failAllWaiting('Connection lost', error),
      })
      .then(
        () => {
          started = true;
        },
        (error: unknown) => {
          report(asError(error), { kind: 'transport-error', level: 'error' });
          shutdown(error);
        },
      );
  } catch (error) {
    startPromise = Promise.resolve();
    report(asError(error), { kind: 'transport-error', level: 'error' });
    shutdown(error);
  }

  return client;
}
