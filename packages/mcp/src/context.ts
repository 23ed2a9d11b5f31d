/**
 * What an MCP server knows about each client (its `initialize`, its logging level, its
 * subscriptions), kept per connection, and the context a tool, resource or prompt handler gets.
 *
 * @module
 */
import {
  JsonRpcError,
  type JsonRpcId,
  type ProgressReporter,
  ProtocolError,
  type RequestOptions,
  type TransportContext,
} from '@jsonrpc-kit/core';
import type { HandlerContext } from '@jsonrpc-kit/server';
import type { InputRounds } from './mrtr.js';
import { isRecord } from './records.js';
import { MISSING_REQUIRED_CLIENT_CAPABILITY, type RequestMeta } from './stateless.js';
import type { TaskStarter } from './tasks/tasks.js';
import type {
  ClientCapabilities,
  CreateMessageParams,
  CreateMessageResult,
  ElicitParams,
  ElicitResult,
  Implementation,
  LoggingLevel,
  Root,
} from './types.js';

/** The eight logging levels, least severe first. */
export const LOGGING_LEVELS: readonly LoggingLevel[] = [
  'debug',
  'info',
  'notice',
  'warning',
  'error',
  'critical',
  'alert',
  'emergency',
];

/** What the server knows about one client (one connection, one Streamable HTTP session). */
export interface McpClientInfo {
  /** The protocol version agreed in `initialize`; `undefined` before it. */
  readonly protocolVersion: string | undefined;
  /** The client's name and version; `undefined` before `initialize`. */
  readonly info: Implementation | undefined;
  /** What the client declared it can do (`{}` before `initialize`). */
  readonly capabilities: ClientCapabilities;
  /**
   * The least severe level the client wants logged (`logging/setLevel`, or the request's `_meta`
   * under 2026-07-28); `undefined`: all under 2025, none under 2026.
   */
  readonly logLevel: LoggingLevel | undefined;
  /** `true` for a request of the stateless revision (2026-07-28): what it says is in its `_meta`. */
  readonly stateless: boolean;
}

/** The state of one client. */
export class ClientState implements McpClientInfo {
  protocolVersion: string | undefined = undefined;
  info: Implementation | undefined = undefined;
  capabilities: ClientCapabilities = {};
  logLevel: LoggingLevel | undefined = undefined;
  initialized = false;
  stateless = false;
  subscriptions: Set<string> | undefined = undefined;

  /**
   * Whether a message at `level` goes to this client.
   *
   * @param level - the message's level
   * @returns `true` when it is at least the client's level
   */
  wants(level: LoggingLevel): boolean {
    if (this.logLevel === undefined) return !this.stateless;
    return LOGGING_LEVELS.indexOf(level) >= LOGGING_LEVELS.indexOf(this.logLevel);
  }
}

/**
 * The client of one 2026-07-28 request, from its `_meta`.
 *
 * @param meta - what the request's `_meta` says
 * @returns a state for this request only
 */
export function statelessClientState(meta: RequestMeta): ClientState {
  const state = new ClientState();
  state.stateless = true;
  state.protocolVersion = meta.protocolVersion;
  state.capabilities = meta.capabilities;
  state.info = meta.info;
  state.logLevel = meta.logLevel;
  return state;
}

const states = new WeakMap<object, ClientState>();

/**
 * The state of the client a call came from (one per connection; a call without a connection,
 * over `server.handle()`, gets a fresh one).
 *
 * @param ctx - the handler's context
 * @returns the client's state
 */
export function clientStateOf(ctx: HandlerContext): ClientState {
  const key = ctx.peer;
  if (key === undefined) return new ClientState();
  let state = states.get(key);
  if (state === undefined) {
    state = new ClientState();
    states.set(key, state);
  }
  return state;
}

/**
 * The state of a connection's client, if it has one.
 *
 * @param connection - a connection of the server
 * @returns its state, or `undefined` when it sent nothing yet
 */
export function existingClientState(connection: object): ClientState | undefined {
  return states.get(connection);
}

/** Options of `ctx.sample()`, `ctx.elicit()` and `ctx.listRoots()`. */
export interface McpAskOptions extends RequestOptions {
  /**
   * The question's key in the `inputRequests` of an `input_required` result (a 2026-07-28
   * request); the client answers under it. Default: the method and the question's rank.
   */
  readonly key?: string;
}

/** What a tool, resource or prompt handler gets besides its arguments. */
export interface McpContext {
  /** Aborted when the client cancels the call (`notifications/cancelled`) or goes away. */
  readonly signal: AbortSignal;
  /** The id of the request. */
  readonly requestId: JsonRpcId | undefined;
  /** The client: its protocol version, name, capabilities and logging level. */
  readonly client: McpClientInfo;
  /** The request's `_meta`, if it had one. */
  readonly meta: Readonly<Record<string, unknown>> | undefined;
  /** Facts about the transport (HTTP headers, the session id, …). */
  readonly transport: TransportContext;
  /**
   * Reports progress, when the client asked for it (a `progressToken` in `_meta`); else does
   * nothing.
   *
   * @param progress - how far along, increasing with each report
   * @param total - the end, when known
   * @param message - what is being done
   * @returns resolves once sent
   */
  progress(progress: number, total?: number, message?: string): Promise<void>;
  /**
   * Sends a log message (`notifications/message`) to this client, when its level asks for it.
   *
   * @param level - how severe
   * @param data - a message or any JSON value
   * @param logger - which part of the server speaks
   * @returns resolves once sent
   */
  log(level: LoggingLevel, data: unknown, logger?: string): Promise<void>;
  /**
   * Asks the client's model (`sampling/createMessage`).
   *
   * @param params - the messages and `maxTokens`
   * @param options - a timeout (the call's signal is passed on)
   * @returns the model's answer
   * @throws ProtocolError when the client did not declare `sampling`; the client's error otherwise
   */
  sample(params: CreateMessageParams, options?: McpAskOptions): Promise<CreateMessageResult>;
  /**
   * Asks the user (`elicitation/create`).
   *
   * @param params - the message and the schema of the answer
   * @param options - a timeout (the call's signal is passed on)
   * @returns what the user did, and the answer
   * @throws ProtocolError when the client did not declare `elicitation`; the client's error otherwise
   */
  elicit(params: ElicitParams, options?: McpAskOptions): Promise<ElicitResult>;
  /**
   * Asks the client for its roots (`roots/list`).
   *
   * @param options - a timeout (the call's signal is passed on)
   * @returns the roots
   * @throws ProtocolError when the client did not declare `roots`; the client's error otherwise
   */
  listRoots(options?: McpAskOptions): Promise<{
    /** The client's roots. */
    readonly roots: readonly Root[];
  }>;
  /**
   * Turns this tool call into a task (the Tasks extension), when the tool has `taskSupport` and
   * the client declared the extension: the client is answered at once with the task, and the
   * handler runs on; its result (or error) is the task's. From then on `signal` is the task's
   * (aborted by `tasks/cancel`), `elicit()`, `sample()` and `listRoots()` park the task in
   * `input_required` until `tasks/update` answers, and `progress()` with a message sets the task's
   * `statusMessage`. Otherwise it does nothing: the call stays synchronous.
   *
   * @returns resolves once the task is stored (at once when the call stays synchronous)
   */
  startTask(): Promise<void>;
  /** The task's id, once `startTask()` made this call a task. */
  readonly taskId: string | undefined;
}

/** A handler's context, made per call. */
export class CallContext implements McpContext {
  readonly #ctx: HandlerContext;
  readonly #rounds: InputRounds | undefined;
  readonly #task: TaskStarter | undefined;
  readonly client: ClientState;
  readonly meta: Readonly<Record<string, unknown>> | undefined;

  /**
   * @param ctx - the kit handler's context
   * @param client - the client's state
   * @param params - the request's params (for `_meta`)
   * @param rounds - the questions and answers of a 2026 request that may ask for input
   * @param task - turns the call into a task (a tool with `taskSupport`, for a client that declared the extension)
   */
  constructor(
    ctx: HandlerContext,
    client: ClientState,
    params: unknown,
    rounds?: InputRounds,
    task?: TaskStarter,
  ) {
    this.#ctx = ctx;
    this.#rounds = rounds;
    this.#task = task;
    this.client = client;
    const meta = isRecord(params) ? params._meta : undefined;
    this.meta = isRecord(meta) ? meta : undefined;
  }

  get signal(): AbortSignal {
    return this.#task?.handle?.signal ?? this.#ctx.signal;
  }

  get taskId(): string | undefined {
    return this.#task?.handle?.taskId;
  }

  startTask(): Promise<void> {
    return this.#task?.start() ?? Promise.resolve();
  }

  get requestId(): JsonRpcId | undefined {
    return this.#ctx.id;
  }

  get transport(): TransportContext {
    return this.#ctx.transport;
  }

  progress(progress: number, total?: number, message?: string): Promise<void> {
    // A task's request was answered already: its progress message becomes the task's status
    // message, which tasks/get shows.
    const task = this.#task?.handle;
    if (task !== undefined) return message === undefined ? Promise.resolve() : task.report(message);
    const report = this.#ctx.progress as
      | ProgressReporter<{ progress: number; total?: number; message?: string }>
      | undefined;
    if (report === undefined) return Promise.resolve();
    const value: { progress: number; total?: number; message?: string } = { progress };
    if (total !== undefined) value.total = total;
    if (message !== undefined) value.message = message;
    return report(value);
  }

  log(level: LoggingLevel, data: unknown, logger?: string): Promise<void> {
    const peer = this.#ctx.peer;
    if (peer === undefined || !this.client.wants(level)) return Promise.resolve();
    const params = logger === undefined ? { level, data } : { level, logger, data };
    return peer.notify('notifications/message', params as Record<string, unknown>);
  }

  sample(params: CreateMessageParams, options?: McpAskOptions): Promise<CreateMessageResult> {
    return this.#ask('sampling', 'sampling/createMessage', params, options);
  }

  elicit(params: ElicitParams, options?: McpAskOptions): Promise<ElicitResult> {
    return this.#ask('elicitation', 'elicitation/create', params, options);
  }

  listRoots(options?: McpAskOptions): Promise<{ readonly roots: readonly Root[] }> {
    return this.#ask('roots', 'roots/list', undefined, options);
  }

  #ask<T>(
    capability: string,
    method: string,
    params: Readonly<Record<string, unknown>> | undefined,
    options: McpAskOptions | undefined,
  ): Promise<T> {
    const peer = this.#ctx.peer;
    if (peer === undefined && !this.client.stateless) {
      return Promise.reject(new ProtocolError(`${method} needs a connection to the client`));
    }
    if (this.client.capabilities[capability] === undefined) {
      if (this.client.stateless) {
        return Promise.reject(
          new JsonRpcError(
            MISSING_REQUIRED_CLIENT_CAPABILITY,
            `The request did not declare the "${capability}" capability`,
            { requiredCapabilities: { [capability]: {} } },
          ),
        );
      }
      return Promise.reject(
        new ProtocolError(`The client did not declare the "${capability}" capability`),
      );
    }
    const task = this.#task?.handle;
    if (task !== undefined) {
      // A task asks through its status: input_required until tasks/update answers.
      return task.ask(method, params ?? {}, options?.key) as Promise<T>;
    }
    if (this.client.stateless) {
      // 2026-07-28: no request to the client; the question ends the round (input_required).
      if (this.#rounds === undefined) {
        return Promise.reject(new ProtocolError(`${method} cannot be asked in this request`));
      }
      return this.#rounds.ask(method, params, options?.key) as Promise<T>;
    }
    const { key: _key, ...rest } = options ?? {};
    return peer!.request<T>(method, params as Record<string, unknown> | undefined, {
      signal: this.#ctx.signal,
      ...rest,
    });
  }
}
