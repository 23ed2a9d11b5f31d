/**
 * The server's options and what its `onError` hook is told.
 *
 * @module
 */
import type {
  Codec,
  ErrorInfo as CoreErrorInfo,
  ErrorLevel,
  JsonRpc1,
  JsonRpcErrorObject,
  JsonRpcId,
  Profile,
  TransportContext,
} from '@jsonrpc-kit/core';
import { DEFAULT_MAX_MESSAGE_BYTES } from '@jsonrpc-kit/core';
import type { OptionNames } from '@jsonrpc-kit/core/engine';
import { checkOptionNames } from '@jsonrpc-kit/core/engine';
import type { CallContextOptions } from './call-context.js';
import {
  DEFAULT_BATCH_CONCURRENCY,
  DEFAULT_MAX_BATCH_SIZE,
  DEFAULT_MAX_CONCURRENCY,
  DEFAULT_MAX_QUEUE,
  defaultClientKey,
} from './defaults.js';
import type { FairLimits } from './limiter.js';

/**
 * What {@link ServerOptions.onError} is told about an event: its `kind` and `level` (see core's
 * `ErrorKind` for the table), the call's `method` and `id` when known, and whether it belongs to a
 * notification.
 *
 * @example
 * ```ts
 * createServer({
 *   onError: (error, info) => {
 *     if (info.level === 'error') console.error(info.kind, info.method, error);
 *   },
 * });
 * ```
 */
export interface ServerErrorInfo extends CoreErrorInfo {
  /** `true` when the event belongs to a notification (nobody is answered). */
  readonly notification: boolean;
}

/** Options of {@link createServer}. Every limit has an exported `DEFAULT_*` constant. */
export interface ServerOptions {
  /**
   * Largest accepted text, in UTF-8 bytes, checked before parsing. A larger request is answered
   * -32004 with its own id (found by a scan of the text's top level; `null` for a batch or text
   * that is not an object), a larger notification is not answered; both are told to `onError`.
   * Transport adapters adopt this limit unless given their own (the adapter's limit then applies
   * to its messages); see the limits table in the README.
   * @default DEFAULT_MAX_MESSAGE_BYTES (1 MiB); unset, stdio and stream transports keep their
   *   own default (16 MiB)
   */
  readonly maxMessageBytes?: number;
  /**
   * Longest accepted batch. A longer batch is answered with one -32003 error (id `null`).
   * @default DEFAULT_MAX_BATCH_SIZE (100)
   */
  readonly maxBatchSize?: number;
  /**
   * How many members of one batch run at once.
   * @default DEFAULT_BATCH_CONCURRENCY (16)
   */
  readonly batchConcurrency?: number;
  /**
   * How many calls run at once on one connection; for `handle()`, the bound is shared by every
   * `handle()` call of the server. Beyond it calls wait in a queue of {@link ServerOptions.maxQueue}.
   * @default DEFAULT_MAX_CONCURRENCY (64)
   */
  readonly maxConcurrency?: number;
  /**
   * How many calls may wait beyond {@link ServerOptions.maxConcurrency} (per connection, and once
   * for all `handle()` calls); past it, calls are answered -32002.
   * @default DEFAULT_MAX_QUEUE (1024)
   */
  readonly maxQueue?: number;
  /**
   * Who a `handle()` exchange (one HTTP request, say) comes from, so that the shared limit is
   * fair across clients: each client runs at most {@link ServerOptions.maxConcurrencyPerClient}
   * calls and queues at most {@link ServerOptions.maxQueuePerClient}, and freed slots go to the
   * waiting clients in turn. Return `undefined` to count an exchange with no client (first come,
   * first served). Behind a reverse proxy, key on the forwarded address or on `ctx.auth`.
   * `false` turns fairness off. Connections (`connect()`) have limits of their own already.
   * @default the remote address (`ctx.remoteAddress`)
   */
  readonly clientKey?: ((context: TransportContext) => string | undefined) | false;
  /**
   * How many `handle()` calls of one client (see {@link ServerOptions.clientKey}) run at once.
   * @default three quarters of `maxConcurrency`, rounded up (48 with the defaults), so the last
   *   quarter is always left to other clients
   */
  readonly maxConcurrencyPerClient?: number;
  /**
   * How many `handle()` calls of one client may wait; past it, its calls are answered -32002.
   * @default a quarter of `maxQueue`, rounded up (256 with the defaults)
   */
  readonly maxQueuePerClient?: number;
  /**
   * Default handler deadline in milliseconds (a method's own `timeout` wins). When it passes, the
   * call is answered -32005 and `ctx.signal` is aborted. `0` or absent: no deadline.
   * @default 0
   */
  readonly handlerTimeout?: number;
  /**
   * Reads each call's context (see core's `call-context`): the time the caller still waits and
   * its metadata, from `params._meta` (`"rpc.timeout"` and the other members) and, over HTTP, the
   * `Jsonrpc-Timeout` and `Jsonrpc-Meta` headers. Handlers see `ctx.deadline` and `ctx.meta`;
   * `ctx.signal` aborts when the deadline passes and the call is answered -32005 (the kit's
   * timeout code); a call whose time is up on arrival is answered -32005 at once, without
   * running; a handler passes both on by giving its `ctx` as a request's options
   * (`ctx.peer.request(m, p, ctx)`, or a client's). The params are left as received (`_meta`
   * included, as in MCP). `true` reads `_meta` and the headers.
   * @default false
   */
  readonly callContext?: boolean | CallContextOptions;
  /**
   * Default deadline of `connection.request()` to the peer, in milliseconds. `0` waits forever.
   * @default 0
   */
  readonly peerCallTimeout?: number;
  /**
   * Whether a handler failure that is not a `JsonRpcError` shows its message (and stack, in
   * `data`) on the wire. Off, it is answered -32603 "Internal error" and nothing else.
   * @default false
   */
  readonly exposeErrorDetails?: boolean;
  /**
   * How cancellation and progress travel on connections (core's `defaultProfile`, `lspProfile`,
   * `mcpProfile`, or your own), or `false` to turn both off. A cancelled call's `ctx.signal`
   * aborts and it is answered with the profile's code (or not at all, for MCP); `ctx.progress`
   * reports progress when the caller sent a token; the connection's own calls that give up send
   * the profile's cancel notice.
   * @default defaultProfile (`$/cancelRequest` with `{ id }`, answered -32001; `$/progress`)
   */
  readonly profile?: Profile<any> | false;
  /**
   * Told of failures nobody is answered about (notification handlers, invalid notifications,
   * transport errors, answers that could not be sent) and of unexpected handler failures (-32603),
   * each with its `kind` and `level` in `info`. Events below {@link ServerOptions.onErrorLevel}
   * are not passed on. Its own throws are ignored.
   *
   * @param error - what failed (an `Error`, or whatever a handler threw)
   * @param info - the event's kind, level, method, id, and whether it was a notification
   */
  readonly onError?: (error: unknown, info: ServerErrorInfo) => void;
  /**
   * The least level passed to `onError`. At the default, routine events such as a notification
   * for an unknown method (`$/setTrace`) or an answer to a peer that just left are not passed on;
   * `"debug"` passes everything.
   * @default DEFAULT_ON_ERROR_LEVEL ("warn")
   */
  readonly onErrorLevel?: ErrorLevel;
  /**
   * Values beyond JSON: decodes params before name mapping and schema validation (schemas see
   * decoded values) and encodes results. Envelope and ids are never touched. Give the client the
   * same codec. `losslessNumbers` (from core) keeps big integers exact as plain JSON numbers.
   * @default none: `JSON.parse` and `JSON.stringify`
   */
  readonly codec?: Codec;
  /**
   * Accept JSON-RPC 1.0 beside 2.0: a request without `jsonrpc` (params by position only,
   * `id: null` for a notification) is answered in 1.0 form (`result` and `error`, one `null`);
   * a 2.0 request is answered in 2.0 form. `true` and core's `jsonrpc1` mean the same.
   * @default false
   */
  readonly jsonrpc1?: boolean | JsonRpc1;
  /**
   * The answer to params that are neither an array nor an object: `"invalid-params"` (-32602) or
   * `"invalid-request"` (-32600), as some compliance suites expect.
   * @default "invalid-params"
   */
  readonly paramsViolation?: 'invalid-params' | 'invalid-request';
  /**
   * Maps what a handler threw (anything but a `JsonRpcError`, which passes through) to the error
   * object to answer. Return `undefined` for the default -32603; its throws and malformed answers
   * are reported and give the default too. Runs after `onError` is told.
   *
   * @param error - what the handler threw
   * @param call - the call's method and id
   * @returns the error object, or `undefined`
   */
  readonly errorHandler?: (
    error: unknown,
    call: { readonly method: string; readonly id: JsonRpcId },
  ) => JsonRpcErrorObject | undefined;
  /**
   * System extensions (`rpc.*` methods): `false` switches them off as a whole, so
   * `registerSystem` registers nothing and every `rpc.*` call is -32601.
   * @default true
   */
  readonly systemMethods?: boolean;
  /**
   * Serve `rpc.listMethods`: the names of the methods (not notifications, not `rpc.*`), in
   * registration order. Off by default: a public endpoint need not list its API.
   * @default false
   */
  readonly listMethods?: boolean;
  /**
   * Accept batches. `false` answers any batch with one -32600 (id `null`) saying batches are not
   * accepted, and runs none of its members.
   * @default true
   */
  readonly batches?: boolean;
}

/** Every name of {@link ServerOptions}: an option added there must be added here. */
const SERVER_OPTION_NAMES: OptionNames<ServerOptions> = {
  maxMessageBytes: true,
  maxBatchSize: true,
  batchConcurrency: true,
  maxConcurrency: true,
  maxQueue: true,
  clientKey: true,
  maxConcurrencyPerClient: true,
  maxQueuePerClient: true,
  handlerTimeout: true,
  callContext: true,
  peerCallTimeout: true,
  exposeErrorDetails: true,
  profile: true,
  onError: true,
  onErrorLevel: true,
  codec: true,
  jsonrpc1: true,
  paramsViolation: true,
  errorHandler: true,
  systemMethods: true,
  listMethods: true,
  batches: true,
};

/** Server options of earlier releases, to what replaced them. */
const RENAMED_SERVER_OPTIONS: Readonly<Record<string, string>> = {
  maxRequestBytes: 'maxMessageBytes (the one size option of the server and every transport)',
  requestTimeout:
    "peerCallTimeout (the deadline of the server's calls to its peer; handlerTimeout is the handlers')",
  timeout:
    "handlerTimeout (the handlers' deadline) or peerCallTimeout (the deadline of calls to the peer)",
  cancellation:
    'profile (defaultProfile, lspProfile, mcpProfile from @jsonrpc-kit/core, or false for none)',
};

/**
 * Refuses option names {@link ServerOptions} does not have, naming the replacement of a renamed
 * one.
 *
 * @param options - the options given
 * @param where - the factory, for the message
 * @throws TypeError for an unknown name
 */
export function checkServerOptions(options: ServerOptions, where: string): void {
  checkOptionNames(where, options, SERVER_OPTION_NAMES, RENAMED_SERVER_OPTIONS);
}

/** The server's limits, checked, with their defaults. Internal. */
export interface Limits {
  readonly maxMessageBytes: number;
  readonly maxBatchSize: number;
  readonly batchConcurrency: number;
  readonly maxConcurrency: number;
  readonly maxQueue: number;
  /** Who a `handle()` exchange comes from; `undefined`: no fairness. */
  readonly clientKey: ((context: TransportContext) => string | undefined) | undefined;
}

function positive(value: number | undefined, fallback: number, name: string): number {
  if (value === undefined) return fallback;
  if (!(value > 0)) throw new RangeError(`${name} must be a number > 0`);
  return value;
}

/**
 * Checks the limits of {@link ServerOptions} and fills in their defaults.
 *
 * @param options - the server's options
 * @returns the limits
 * @throws RangeError when a limit is not a positive number (`maxQueue`: not >= 0)
 */
export function resolveLimits(options: ServerOptions): Limits {
  const maxQueue = options.maxQueue ?? DEFAULT_MAX_QUEUE;
  if (!(maxQueue >= 0)) throw new RangeError('maxQueue must be a number >= 0');
  return {
    maxMessageBytes: positive(
      options.maxMessageBytes,
      DEFAULT_MAX_MESSAGE_BYTES,
      'maxMessageBytes',
    ),
    maxBatchSize: positive(options.maxBatchSize, DEFAULT_MAX_BATCH_SIZE, 'maxBatchSize'),
    batchConcurrency: positive(
      options.batchConcurrency,
      DEFAULT_BATCH_CONCURRENCY,
      'batchConcurrency',
    ),
    maxConcurrency: positive(options.maxConcurrency, DEFAULT_MAX_CONCURRENCY, 'maxConcurrency'),
    maxQueue,
    clientKey: options.clientKey === false ? undefined : (options.clientKey ?? defaultClientKey),
  };
}

/**
 * The per-client bounds of the limiter shared by `handle()` calls.
 *
 * @param options - the server's options
 * @param maxConcurrency - the checked `maxConcurrency`
 * @param maxQueue - the checked `maxQueue`
 * @returns the bounds
 * @throws RangeError when `maxConcurrencyPerClient` is not a positive number
 */
export function fairLimits(
  options: ServerOptions,
  maxConcurrency: number,
  maxQueue: number,
): FairLimits {
  return {
    maxPerClient: positive(
      options.maxConcurrencyPerClient,
      Math.ceil((maxConcurrency * 3) / 4),
      'maxConcurrencyPerClient',
    ),
    maxQueuePerClient: options.maxQueuePerClient ?? Math.ceil(maxQueue / 4),
  };
}
