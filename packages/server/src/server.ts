/**
 * `createServer()`: the method registry, middleware, `handle()` for stateless exchanges and
 * `connect()` for duplex transports.
 *
 * @module
 */
import {
  type Contract,
  defaultProfile,
  ErrorCode,
  jsonrpc1,
  RequestTooLargeError,
  type Transport,
  type TransportContext,
} from '@jsonrpc-kit/core';
import {
  asyncDisposeSymbol,
  checkOptionNames,
  createMiddlewareList,
  createReporter,
  jsonReaderOf,
  jsonWriterOf,
  type OptionNames,
  scanEnvelope,
} from '@jsonrpc-kit/core/engine';
import { createContextReader } from './call-context.js';
import { type ConnectionConfig, connectionMaker } from './connection.js';
import { createDispatcher } from './dispatch.js';
import { createLimiter } from './limiter.js';
import { contractEntries, MethodTable } from './method-table.js';
import type { ServerOptions } from './options.js';
import { checkServerOptions, fairLimits, resolveLimits } from './options.js';
import { paramsDecoder } from './params-decoder.js';
import { type EntryOptions, makeEntry } from './registry.js';
import type { Scope } from './scope.js';
import type { Connection, Server } from './server-types.js';
import { refuseTooLarge } from './too-large.js';
import type {
  ContractImplementation,
  Handler,
  ImplementOptions,
  MethodDescriptor,
  NotificationHandler,
  NotificationMethodOptions,
  ServerMethodOptions,
  ServerMiddleware,
} from './types.js';
import { exceedsUtf8Bytes } from './utf8.js';

const EMPTY_CONTEXT: TransportContext = Object.freeze({});

/** Every name of {@link ServerMethodOptions}. */
const METHOD_OPTION_NAMES: OptionNames<ServerMethodOptions> = {
  params: true,
  result: true,
  paramNames: true,
  timeout: true,
  description: true,
  docs: true,
};

/** Every name of {@link NotificationMethodOptions}. */
const NOTIFICATION_OPTION_NAMES: OptionNames<NotificationMethodOptions> = {
  params: true,
  paramNames: true,
  timeout: true,
  description: true,
  docs: true,
};

/** Every name of {@link ImplementOptions}. */
const IMPLEMENT_OPTION_NAMES: OptionNames<ImplementOptions> = { prefix: true, naming: true };

/**
 * Creates a JSON-RPC 2.0 server.
 *
 * @param options - limits, timeouts, error exposure, cancellation and the error hook
 * @returns the server
 * @throws RangeError when a limit is not a positive number, or `onErrorLevel` is not a level;
 *   TypeError for an option name it does not know (naming the replacement of a renamed one:
 *   `timeout` is `handlerTimeout`, `cancellation` is `profile`)
 * @example
 * ```ts
 * const server = createServer();
 * server.method('subtract', ([a, b]: [number, number]) => a - b);
 * await server.handle('{"jsonrpc":"2.0","id":1,"method":"subtract","params":[42,23]}');
 * // '{"jsonrpc":"2.0","id":1,"result":19}'
 * ```
 */
export function createServer(options: ServerOptions = {}): Server {
  checkServerOptions(options, 'createServer');
  const { maxMessageBytes, maxBatchSize, batchConcurrency, maxConcurrency, maxQueue, clientKey } =
    resolveLimits(options);
  /** The limit the user set, for transports to adopt; `undefined` leaves them their defaults. */
  const setMessageBytes = options.maxMessageBytes;
  const handlerTimeout = options.handlerTimeout ?? 0;
  const peerCallTimeout = options.peerCallTimeout ?? 0;
  const profile = options.profile === false ? undefined : (options.profile ?? defaultProfile);
  const report = createReporter(options.onError, options.onErrorLevel);
  const systemMethods = options.systemMethods !== false;
  const read = jsonReaderOf(options.codec);
  const v1 = options.jsonrpc1 === true ? jsonrpc1 : options.jsonrpc1 || undefined;
  const parseOptions = read === undefined && v1 === undefined ? undefined : { read, jsonrpc1: v1 };

  const table = new MethodTable();
  const chain = createMiddlewareList<ServerMiddleware>(
    'server.use() takes a middleware function: to serve a contract, use server.implement(contract, implementation)',
  );
  const connections = new Set<Connection>();
  const globalLimiter = createLimiter(
    maxConcurrency,
    maxQueue,
    clientKey === undefined ? undefined : fairLimits(options, maxConcurrency, maxQueue),
  );

  const dispatcher = createDispatcher({
    methods: table.entries,
    middleware: () => chain.current,
    maxBatchSize,
    batchConcurrency,
    timeout: handlerTimeout,
    readContext: createContextReader(options.callContext),
    exposeErrorDetails: options.exposeErrorDetails === true,
    cancelMethod: profile?.cancellation.method,
    report,
    policies: {
      parseOptions,
      decode: paramsDecoder(options.codec),
      write: jsonWriterOf(options.codec),
      paramsViolationCode:
        options.paramsViolation === 'invalid-request'
          ? ErrorCode.InvalidRequest
          : ErrorCode.InvalidParams,
      errorHandler: options.errorHandler,
      batches: options.batches !== false,
    },
  });

  /** What every connection of this server shares. */
  const connectionConfig: ConnectionConfig = {
    dispatcher,
    maxMessageBytes,
    setMessageBytes,
    // As a limiter of its own would hold them (each connection is its calls' limiter).
    maxConcurrency: Math.max(1, maxConcurrency),
    maxQueue: Math.max(0, maxQueue),
    peerCallTimeout,
    profile,
    report,
    onClosed: (closed) => connections.delete(closed),
  };
  const serve = connectionMaker(connectionConfig);

  const defaultScope: Scope = {
    transport: EMPTY_CONTEXT,
    peer: undefined,
    limiter: globalLimiter,
    client: undefined,
    session: undefined,
    outer: undefined,
  };

  const register = (
    name: string,
    kind: 'method' | 'notification',
    handler: unknown,
    entryOptions: EntryOptions | undefined,
    system: boolean,
  ): (() => void) => {
    checkOptionNames(
      `${kind === 'method' ? 'Method' : 'Notification'} "${name}"`,
      entryOptions,
      kind === 'method' ? METHOD_OPTION_NAMES : NOTIFICATION_OPTION_NAMES,
    );
    return table.add(makeEntry(name, kind, handler, entryOptions, system));
  };

  const scopeOf = (context: TransportContext | undefined): Scope =>
    context === undefined || context === EMPTY_CONTEXT
      ? defaultScope
      : {
          transport: context,
          peer: undefined,
          limiter: globalLimiter,
          client: clientKey?.(context),
          session: undefined,
          outer: 'signal' in context ? context : undefined,
        };

  const answerText = (
    text: string,
    context: TransportContext | undefined,
  ): string | undefined | Promise<string | undefined> => {
    const limit = context?.maxMessageBytes ?? maxMessageBytes;
    if (exceedsUtf8Bytes(text, limit)) {
      const error = new RequestTooLargeError(undefined, { maxRequestBytes: limit });
      return refuseTooLarge(scanEnvelope(text), limit, error, report);
    }
    return dispatcher.answerText(text, scopeOf(context));
  };

  const server: Server = {
    method(name: string, handler: Handler, methodOptions?: ServerMethodOptions): () => void {
      return register(name, 'method', handler, methodOptions, false);
    },
    notification(
      name: string,
      handler: NotificationHandler,
      notificationOptions?: NotificationMethodOptions,
    ): () => void {
      return register(name, 'notification', handler, notificationOptions, false);
    },
    implement<C extends Contract>(
      contract: C,
      implementation: ContractImplementation<C>,
      implementOptions?: ImplementOptions,
    ): () => void {
      checkOptionNames('server.implement', implementOptions, IMPLEMENT_OPTION_NAMES);
      return table.addAll(contractEntries(contract, implementation, implementOptions));
    },
    use: chain.use,
    registerSystem(
      name: string,
      handler: Handler,
      methodOptions?: ServerMethodOptions,
    ): () => void {
      checkOptionNames(`System method "${name}"`, methodOptions, METHOD_OPTION_NAMES);
      const entry = makeEntry(name, 'method', handler, methodOptions, true);
      return systemMethods ? table.add(entry) : () => {};
    },
    methods(): readonly MethodDescriptor[] {
      return table.descriptors();
    },
    maxMessageBytes: setMessageBytes,
    codec: options.codec,
    parse: dispatcher.parse,
    handle(text: string, context?: TransportContext): Promise<string | undefined> {
      const out = answerText(text, context);
      return typeof out === 'object' ? out : Promise.resolve(out);
    },
    answer: answerText,
    connect(transport: Transport, context?: TransportContext): Connection {
      const connection = serve(transport, context ?? EMPTY_CONTEXT);
      connections.add(connection);
      return connection;
    },
    connections,
    [asyncDisposeSymbol]: () => server.close(),
    close(): Promise<void> {
      return Promise.all(Array.from(connections, (connection) => connection.close())).then(
        () => undefined,
      );
    },
  };
  if (options.listMethods === true) {
    server.registerSystem(
      'rpc.listMethods',
      () => table.descriptors().flatMap((d) => (d.kind === 'method' && !d.system ? [d.name] : [])),
      { description: 'The names of the methods this server serves.' },
    );
  }
  return server;
}
