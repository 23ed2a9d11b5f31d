/**
 * The client's options: {@link ClientOptions} and {@link AutoBatchOptions}.
 *
 * @module
 */
import type {
  Codec,
  ErrorInfo,
  ErrorLevel,
  IncomingNotificationHandler,
  IncomingRequestHandler,
  JsonRpc1,
  JsonRpcId,
  Profile,
  SubscriptionDialect,
} from '@jsonrpc-kit/core';
import type { OptionNames } from '@jsonrpc-kit/core/engine';
import { checkOptionNames } from '@jsonrpc-kit/core/engine';
import type { ResponseChecker } from './response-checks.js';

/**
 * Options of auto-batching.
 *
 * @example
 * ```ts
 * const client = createClient(transport, { batch: { wait: 5, maxSize: 50 } });
 * ```
 */
export interface AutoBatchOptions {
  /** Milliseconds to collect calls; `0` collects the calls of the same tick. @default 0 */
  readonly wait?: number;
  /** Most messages in one batch; a full batch is sent at once. @default 100 */
  readonly maxSize?: number;
}

/**
 * Options of {@link createClient}.
 *
 * @example
 * ```ts
 * const options: ClientOptions = { callTimeout: 10_000, sendCancel: true, batch: { wait: 2 } };
 * ```
 */
export interface ClientOptions<V = unknown> {
  /**
   * Default per-call timeout in milliseconds, overridable per call; `0` or `Infinity` waits
   * forever. A call past it rejects with a `TimeoutError` (`TIMEOUT`). Left unset, the default
   * is a safety net that fails the call but leaves a send under way alone, checked every tenth of
   * it (a call fails 30 to 33 s after it started; no timer per call, and it does not keep the
   * process alive); a timeout set here or per call is exact and also aborts the send (the
   * `signal` given to `transport.send()`).
   *
   * @default 30000 ({@link DEFAULT_CALL_TIMEOUT})
   */
  readonly callTimeout?: number;
  /**
   * The params member that carries a call's `deadline` and `meta` (see {@link Client.request})
   * on transports that do not carry them in headers.
   * @default DEFAULT_CONTEXT_MEMBER ("_meta", as MCP)
   */
  readonly contextMember?: string;
  /**
   * Makes request ids. An id that is not a string or a finite number is refused locally: the
   * call rejects with a TypeError and nothing is sent.
   * @default sequential numbers 1, 2, 3…
   */
  readonly generateId?: () => JsonRpcId;
  /**
   * How cancellation and progress travel on the wire (core's `defaultProfile`, `lspProfile`,
   * `mcpProfile`, or your own). Incoming cancellations (of calls `onRequest` is serving) follow
   * it: the call's `ctx.signal` aborts and it is answered with the profile's code at once, or not
   * at all when its cancellation has `answer: false`. `request(…, { onProgress })` puts the
   * profile's progress token in the params; handlers report with `ctx.progress`.
   *
   * @default defaultProfile
   */
  readonly profile?: Profile<V>;
  /**
   * Sends the profile's cancel notification when a call times out or is aborted after it was
   * sent.
   *
   * @default false
   */
  readonly sendCancel?: boolean;
  /**
   * Auto-batching: calls (and notifications) made in the same tick, or within `wait` ms, go out
   * as one batch of at most `maxSize` messages. A lone call goes out as a single message.
   *
   * @default false
   */
  readonly batch?: boolean | AutoBatchOptions;
  /**
   * Answers requests the other side sends (duplex transports). `ctx.signal` aborts when the other
   * side cancels the call or the client closes.
   *
   * @default answers -32601
   */
  readonly onRequest?: IncomingRequestHandler;
  /**
   * Receives notifications the other side sends, except the items of `subscribe()`'s
   * subscriptions. @default ignores them
   */
  readonly onNotification?: IncomingNotificationHandler;
  /**
   * How `subscribe()` talks to the server: core's `ethereumSubscriptions`,
   * `genericSubscriptions`, or one made by `createSubscriptionDialect()`.
   * @default genericSubscriptions
   */
  readonly subscriptionDialect?: SubscriptionDialect;
  /**
   * Receives what goes wrong outside a call: malformed or unknown answers (a `ProtocolError`),
   * the transport's non-fatal errors, failing handlers, sends nobody waits on. `info` tells the
   * event's `kind` and `level` (see core's `ErrorKind`) and the call's `method` and `id` when
   * known. Events below {@link ClientOptions.onErrorLevel} are not passed on. Its throws are
   * ignored.
   *
   * @param error - what failed
   * @param info - the event's kind, level, method and id
   */
  readonly onError?: (error: Error, info: ErrorInfo) => void;
  /**
   * The least level passed to `onError`; `"debug"` passes routine events too (a cancel
   * notification or an answer that could not be sent because the connection had closed).
   * @default DEFAULT_ON_ERROR_LEVEL ("warn")
   */
  readonly onErrorLevel?: ErrorLevel;
  /**
   * Values beyond JSON: encodes params on the way out and decodes results on the way in (before
   * a contract's result schema checks them); ids, errors and the envelope are untouched. Give the
   * server the same codec. `losslessNumbers` (from core) keeps big integers exact.
   * @default none
   */
  readonly codec?: Codec;
  /**
   * Speak JSON-RPC 1.0: pass core's `jsonrpc1` (`createClient(transport, { jsonrpc1 })`).
   * Requests go without `jsonrpc`, params by position only (params by name reject with a
   * TypeError), notifications as requests with `id: null`, and answers are read with `result`
   * beside `error` (one `null`). JSON-RPC 1.0 has no batches: `batch()` rejects with a TypeError
   * and the `batch` option throws a RangeError. Cancel notices go out as 1.0 notifications. The 1.0 code comes with
   * the value: a client without it ships none.
   * @default undefined (2.0)
   */
  readonly jsonrpc1?: JsonRpc1;
  /**
   * Response checks to change, one named rule each, made by core's `responseChecks(rules)`; the
   * rest stay strict (core's `STRICT_RESPONSE_CHECKS`). An answer that breaks a rule fails its
   * call with a `ProtocolError` and is reported. `responseChecks({ requireExclusiveResultOrError:
   * false })` accepts `"error": null` beside `result`. The checks' code comes with the value: a
   * client without it ships none.
   * @default strict
   */
  readonly responseChecks?: ResponseChecker;
}

/** Every name of {@link ClientOptions}: an option added there must be added here. */
const CLIENT_OPTION_NAMES: OptionNames<ClientOptions> = {
  callTimeout: true,
  contextMember: true,
  generateId: true,
  profile: true,
  sendCancel: true,
  batch: true,
  onRequest: true,
  onNotification: true,
  subscriptionDialect: true,
  onError: true,
  onErrorLevel: true,
  codec: true,
  jsonrpc1: true,
  responseChecks: true,
};

/** Every name of {@link AutoBatchOptions}. */
const AUTO_BATCH_OPTION_NAMES: OptionNames<AutoBatchOptions> = { wait: true, maxSize: true };

/** Client options of earlier releases, to what replaced them. */
const RENAMED_CLIENT_OPTIONS: Readonly<Record<string, string>> = {
  timeout: 'callTimeout',
  requestTimeout: 'callTimeout',
  cancellation:
    'profile (defaultProfile, lspProfile, mcpProfile from @jsonrpc-kit/core) for the wire shape, and sendCancel: true to send cancel notices',
};

/**
 * Refuses option names {@link ClientOptions} (and its `batch` object) does not have, naming the
 * replacement of a renamed one. Internal.
 *
 * @param options - the options given
 * @throws TypeError for an unknown name
 */
export function checkClientOptions(options: ClientOptions<any>): void {
  checkOptionNames('createClient', options, CLIENT_OPTION_NAMES, RENAMED_CLIENT_OPTIONS);
  checkOptionNames('createClient: batch', options.batch, AUTO_BATCH_OPTION_NAMES);
}
