/**
 * The JSON-RPC client: a thin layer over core's session (which matches answers, times calls out,
 * cancels them and serves the other side's calls), adding auto-batching, explicit batches,
 * middleware, contract proxies and result validation.
 *
 * @module
 */
import {
  ConnectionClosedError,
  type Contract,
  defaultProfile,
  type ErrorInfo,
  genericSubscriptions,
  type JsonRpcId,
  type JsonRpcParams,
  type JsonRpcRequest,
  MethodNotFoundError,
  type Middleware,
  type RequestOptions,
  type StandardSchemaV1,
  serializeNotification,
  serializeRequest,
  type Transport,
} from '@jsonrpc-kit/core';
import {
  asyncDisposeSymbol,
  createIncomingRunner,
  createMiddlewareList,
  createReporter,
  createSession,
  hasCallContext,
  jsonWriterOf,
  runMiddleware,
  toError,
  withDecodedParams,
} from '@jsonrpc-kit/core/engine';
import { createAutoBatchQueue } from './auto-batch.js';
import type { BatchBuilder, BatchEntry } from './batch.js';
import { checkCall, checkedIds, checkResult, newCall } from './call-checks.js';
import { type ClientContractOptions, createContractStub } from './contract-stub.js';
import {
  DEFAULT_BATCH_MAX_SIZE,
  DEFAULT_BATCH_WAIT,
  DEFAULT_CALL_TIMEOUT,
  DEFAULT_LATE_ANSWER_MEMORY,
} from './defaults.js';
import { checkClientOptions } from './options.js';
import { readerOf } from './read.js';
import { sendBatch } from './send-batch.js';
import { ServedCall } from './served-call.js';
import { createPromisifiedStub, type StubOptions } from './stub.js';
import { createSubscriber } from './subscriber.js';
import type { AutoBatchOptions, Client, ClientCall, ClientOptions } from './types.js';

/** Why a client speaking JSON-RPC 1.0 sends no batch. */
const NO_BATCHES_IN_1_0 = 'JSON-RPC 1.0 has no batches';

function autoBatchOptions(option: ClientOptions<any>['batch']): AutoBatchOptions | undefined {
  if (option === undefined || option === false) return undefined;
  return option === true ? {} : option;
}

const NO_OPTIONS: RequestOptions = Object.freeze({});

/**
 * Creates a client over a transport and starts the transport.
 *
 * @param transport - a transport, not yet started: the client becomes its only owner
 * @param options - timeout, ids, profile, auto-batching, incoming handlers, error hook
 * @returns the client
 * @throws RangeError when `batch.maxSize` is below 1 or `batch.wait` is negative; TypeError for
 *   an option name it does not know (naming the replacement of a renamed one: `timeout` is
 *   `callTimeout`, `cancellation` is `profile` and `sendCancel`)
 * @example
 * ```ts
 * const client = createClient(transport, { callTimeout: 5_000, sendCancel: true });
 * const sum = await client.request<number>('add', [1, 2]);
 * await client.notify('log', { message: 'done' });
 * const [a, b] = await client.batch((b) => [b.request<number>('add', [1, 2]), b.request('ping')]);
 * await client.close();
 * ```
 */
export function createClient<V = unknown>(
  transport: Transport,
  options: ClientOptions<V> = {},
): Client<V> {
  checkClientOptions(options);
  const defaultTimeout = options.callTimeout ?? DEFAULT_CALL_TIMEOUT;
  const jsonrpc1 = options.jsonrpc1;
  const write = jsonWriterOf(options.codec);
  /** The text of a request (checked first): 2.0, or 1.0 when the client speaks it. */
  const requestText = (
    id: JsonRpcId,
    method: string,
    params: JsonRpcParams | undefined,
  ): string => {
    checkCall(method, params);
    return jsonrpc1 === undefined
      ? serializeRequest(id, method, params, write)
      : jsonrpc1.serializeRequest(id, method, params as readonly unknown[] | undefined, write);
  };
  /** The text of a notification (checked first). */
  const notificationText = (method: string, params: JsonRpcParams | undefined): string => {
    checkCall(method, params);
    return jsonrpc1 === undefined
      ? serializeNotification(method, params, write)
      : jsonrpc1.serializeNotification(method, params as readonly unknown[] | undefined, write);
  };
  const auto = autoBatchOptions(options.batch);
  const batchWait = auto?.wait ?? DEFAULT_BATCH_WAIT;
  const batchMaxSize = auto?.maxSize ?? DEFAULT_BATCH_MAX_SIZE;
  if (auto !== undefined && !(batchMaxSize >= 1)) {
    throw new RangeError(`batch.maxSize must be at least 1, got ${batchMaxSize}`);
  }
  if (auto !== undefined && !(batchWait >= 0)) {
    throw new RangeError(`batch.wait must not be negative, got ${batchWait}`);
  }
  if (auto !== undefined && jsonrpc1 !== undefined) {
    throw new RangeError(NO_BATCHES_IN_1_0);
  }
  const report = createReporter<Error, ErrorInfo>(options.onError, options.onErrorLevel);
  const session = createSession(transport, {
    profile: options.profile ?? defaultProfile,
    sendCancel: options.sendCancel,
    // Unset, the default deadline is a safety net: it fails the call but leaves its send alone.
    callTimeout: options.callTimeout,
    fallbackTimeout: DEFAULT_CALL_TIMEOUT,
    lateAnswerMemory: DEFAULT_LATE_ANSWER_MEMORY,
    generateId: checkedIds(options.generateId),
    serializeRequest: requestText,
    serializeNotification: notificationText,
    parse: readerOf(options.codec, jsonrpc1, options.responseChecks),
    contextMember: options.contextMember,
    report,
    placeNullIdErrors: true,
    closeReason: (cause) => cause ?? new ConnectionClosedError(),
    onClose: (cause) => {
      queue?.drop(new ConnectionClosedError(undefined, { cause }));
      subscriber.closed(cause);
    },
    onReconnect: () => subscriber.reconnected(),
  });
  const queue =
    auto === undefined ? undefined : createAutoBatchQueue(session, batchWait, batchMaxSize);
  const pending = session.pending;
  const chain = createMiddlewareList<Middleware<ClientCall>>(
    'client.use() takes a middleware function: to call a contract, use client.contract(contract)',
  );

  const closedError = (method: string): ConnectionClosedError =>
    new ConnectionClosedError(undefined, { method });

  /** A request through the auto-batch queue. */
  const queued = (
    method: string,
    params: JsonRpcParams | undefined,
    callOptions: RequestOptions,
    id: JsonRpcId,
  ): Promise<unknown> => {
    if (session.isClosed) return Promise.reject(closedError(method));
    return queue!.request(
      method,
      params,
      { signal: callOptions.signal, timeout: callOptions.timeout ?? defaultTimeout },
      id,
    );
  };

  /** The request itself, after the middleware; a contract's schema checks the result. */
  const send = (
    method: string,
    params: JsonRpcParams | undefined,
    callOptions: RequestOptions,
    schema: StandardSchemaV1 | undefined,
  ): Promise<unknown> => {
    // A call with progress or a context goes out on its own: it cannot share a batch's message.
    const alone =
      queue === undefined || callOptions.onProgress !== undefined || hasCallContext(callOptions);
    if (schema === undefined && alone) return session.request(method, params, callOptions);
    let id: JsonRpcId;
    try {
      id = session.nextId();
    } catch (error) {
      return Promise.reject(error);
    }
    const promise = alone
      ? session.request(method, params, callOptions, id)
      : queued(method, params, callOptions, id);
    return schema === undefined
      ? promise
      : promise.then((value) => checkResult(schema, value, { method, id }));
  };

  const sendNotification = (method: string, params: JsonRpcParams | undefined): Promise<void> => {
    if (queue === undefined) return session.notify(method, params);
    if (session.isClosed) return Promise.reject(closedError(method));
    return queue.notify(method, params);
  };

  const viaMiddleware = (ctx: ClientCall, schema?: StandardSchemaV1): Promise<unknown> =>
    runMiddleware(
      chain.current,
      ctx,
      () =>
        ctx.kind === 'request'
          ? send(ctx.method, ctx.params, ctx.options, schema)
          : sendNotification(ctx.method, ctx.params),
      true,
    );

  const request = (
    method: string,
    params?: JsonRpcParams,
    requestOptions?: RequestOptions,
    schema?: StandardSchemaV1,
  ): Promise<unknown> => {
    const callOptions = requestOptions ?? NO_OPTIONS;
    if (chain.current.length === 0) return send(method, params, callOptions, schema);
    return viaMiddleware(newCall('request', method, params, callOptions), schema);
  };

  const notify = (method: string, params?: JsonRpcParams): Promise<void> => {
    if (chain.current.length === 0) return sendNotification(method, params);
    return viaMiddleware(newCall('notification', method, params, NO_OPTIONS)).then(() => undefined);
  };

  const call = (
    method: string,
    params: JsonRpcParams | undefined,
    schema: StandardSchemaV1 | undefined,
  ): Promise<unknown> => request(method, params, undefined, schema);

  const subscriber = createSubscriber({
    dialect: options.subscriptionDialect ?? genericSubscriptions,
    request: (method, params) => request(method, params),
    isClosed: () => session.isClosed,
    decode: options.codec?.decode,
    onActive: (active) => transport.setPushWanted?.(active),
  });

  const client: Client<V> = {
    request: request as Client<V>['request'],
    notify,
    subscribe: subscriber.subscribe,
    batch: ((
      build: (b: BatchBuilder) => readonly BatchEntry<any>[],
      batchOptions?: RequestOptions,
    ) =>
      jsonrpc1 !== undefined
        ? Promise.reject(new TypeError(NO_BATCHES_IN_1_0))
        : sendBatch(
            session,
            () => queue?.flush(),
            defaultTimeout,
            build,
            batchOptions,
          )) as Client<V>['batch'],
    use: chain.use,
    contract: <C extends Contract>(contract: C, useOptions?: ClientContractOptions) =>
      createContractStub({ call, notify, subscribe: subscriber.subscribe }, contract, useOptions),
    stub: <T extends object>(stubOptions?: StubOptions) =>
      createPromisifiedStub<T>((method, params) => request(method, params), stubOptions),
    get pending() {
      return pending.size;
    },
    close: (reason?: unknown) => session.close(reason),
    closed: session.closed,
    [asyncDisposeSymbol]: () => session.close(),
  };

  const onRequest = options.onRequest;
  const onNotification = options.onNotification;
  const decode = options.codec?.decode;
  const runner = createIncomingRunner<undefined, ServedCall>({
    call: (parsed) => new ServedCall(parsed.message, client, session),
    run: (served) => {
      const message = served.message;
      if (served.id !== undefined) {
        if (onRequest === undefined) throw new MethodNotFoundError();
        return onRequest(withDecodedParams(message as JsonRpcRequest, decode), served);
      }
      if (subscriber.route(message)) return undefined;
      return onNotification?.(withDecodedParams(message, decode), served);
    },
    session: () => session,
    report: (error, info) => report(toError(error), info),
    answerInvalid: false,
    write,
    jsonrpc1,
  });
  session.start((parsed, text) => runner.answer(parsed, undefined, text));
  return client;
}
