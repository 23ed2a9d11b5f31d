/**
 * The Tasks extension (`io.modelcontextprotocol/tasks`, SEP-2663): a `tools/call` of a tool that
 * supports tasks is answered at once with a `CreateTaskResult` while the tool runs on; the client
 * polls `tasks/get` (the result, or the error, inlined once it is done), answers the questions the
 * tool asks (`input_required`, `inputRequests`) with `tasks/update`, and can `tasks/cancel` it.
 * The server alone decides when a call becomes a task: the handler calls `ctx.startTask()`.
 * Everything about a task is in a {@link TaskStore}; the handler's continuation stays in the
 * process that runs it, and finds answers and cancellations made on other processes by polling
 * the store.
 *
 * @module
 */
import { InvalidParamsError, JsonRpcError } from '@jsonrpc-kit/core';
import type { InputRequest } from '../mrtr.js';
import { MISSING_REQUIRED_CLIENT_CAPABILITY } from '../stateless.js';
import type { ClientCapabilities } from '../types.js';
import {
  createMemoryTaskStore,
  type TaskError,
  type TaskRecord,
  type TaskStore,
  TERMINAL_TASK_STATUSES,
} from './store.js';

/** The id of the Tasks extension, in `capabilities.extensions`. */
export const TASKS_EXTENSION_ID = 'io.modelcontextprotocol/tasks';

/** Whether a tool can run as a task: `'optional'` (when the client declared the extension) or `'required'` (refused otherwise). */
export type TaskSupport = 'optional' | 'required';

/** Options of the Tasks extension on a server. */
export interface TaskOptions {
  /**
   * Where tasks live. Give every process of a cluster the same shared store.
   *
   * @default an in-memory store of this process ({@link createMemoryTaskStore})
   */
  readonly store?: TaskStore;
  /**
   * Milliseconds a task is kept after its creation (`ttlMs` of the task).
   *
   * @default 3600000 (an hour)
   */
  readonly ttlMs?: number;
  /**
   * The polling interval suggested to clients (`pollIntervalMs`), in milliseconds; also how often
   * a running task looks in the store for answers and cancellations made on other processes.
   *
   * @default 500
   */
  readonly pollIntervalMs?: number;
}

/**
 * Whether capabilities declare the Tasks extension.
 *
 * @param capabilities - a client's capabilities (of `initialize`, or of a request's `_meta`)
 * @returns `true` when `extensions["io.modelcontextprotocol/tasks"]` is there
 */
export function declaresTasks(capabilities: ClientCapabilities): boolean {
  const extensions = capabilities.extensions;
  return (
    typeof extensions === 'object' &&
    extensions !== null &&
    (extensions as Record<string, unknown>)[TASKS_EXTENSION_ID] !== undefined
  );
}

/**
 * The error of a call to a tool that requires a task, from a client without the extension.
 *
 * @param tool - the tool's name
 * @returns the -32021 error naming the extension
 */
export function requiredTaskError(tool: string): JsonRpcError {
  return new JsonRpcError(
    MISSING_REQUIRED_CLIENT_CAPABILITY,
    `Tool ${tool} runs as a task: the request must declare the ${TASKS_EXTENSION_ID} extension`,
    { requiredCapabilities: { extensions: { [TASKS_EXTENSION_ID]: {} } } },
  );
}

/** The error of a `tasks/*` request from a client without the extension. */
export function tasksNotDeclaredError(method: string): JsonRpcError {
  return new JsonRpcError(
    MISSING_REQUIRED_CLIENT_CAPABILITY,
    `${method} needs the ${TASKS_EXTENSION_ID} extension`,
    { requiredCapabilities: { extensions: { [TASKS_EXTENSION_ID]: {} } } },
  );
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function defined<T extends Record<string, unknown>>(object: T): T {
  for (const key of Object.keys(object)) if (object[key] === undefined) delete object[key];
  return object;
}

function randomId(): string {
  const bytes = crypto.getRandomValues(new Uint8Array(16));
  return Array.from(bytes, (b) => b.toString(16).padStart(2, '0')).join('');
}

/** A running task, seen from its handler. */
export interface TaskHandle {
  /** The task's id. */
  readonly taskId: string;
  /** Aborted when the task is cancelled. */
  readonly signal: AbortSignal;
  /**
   * Asks the client a question: the task waits (`input_required`) until `tasks/update` answers it.
   *
   * @param method - `elicitation/create`, `sampling/createMessage` or `roots/list`
   * @param params - its params
   * @param key - its key in `inputRequests` (default: the method and its rank in the task)
   * @returns the answer
   */
  ask(method: string, params: Readonly<Record<string, unknown>>, key?: string): Promise<unknown>;
  /**
   * Sets the task's `statusMessage` (what `tasks/get` shows while it runs).
   *
   * @param message - the message
   * @returns resolves once stored
   */
  report(message: string): Promise<void>;
}

/** Turns one call into a task, at most once. */
export interface TaskStarter {
  /** The task, once started. */
  readonly handle: TaskHandle | undefined;
  /** Resolves with the task once it is stored. */
  readonly started: Promise<TaskHandle>;
  /**
   * Creates the task (once: later calls wait for the same one).
   *
   * @returns resolves once the task is stored
   */
  start(): Promise<void>;
}

interface Local {
  readonly abort: AbortController;
  readonly waiters: Set<() => void>;
}

function wake(local: Local | undefined): void {
  if (local === undefined) return;
  for (const waiter of [...local.waiters]) waiter();
}

/** The tasks of one server: creates them, runs their continuations, answers `tasks/*`. */
export class TaskManager {
  readonly #store: TaskStore;
  readonly #ttlMs: number;
  readonly #pollIntervalMs: number;
  readonly #local = new Map<string, Local>();

  /**
   * @param options - store, lifetime, polling interval
   * @throws TypeError when `ttlMs` or `pollIntervalMs` is not a positive integer
   */
  constructor(options: TaskOptions = {}) {
    this.#store = options.store ?? createMemoryTaskStore();
    this.#ttlMs = options.ttlMs ?? 3_600_000;
    this.#pollIntervalMs = options.pollIntervalMs ?? 500;
    for (const [name, value] of [
      ['ttlMs', this.#ttlMs],
      ['pollIntervalMs', this.#pollIntervalMs],
    ] as const) {
      if (!Number.isInteger(value) || value < 1) {
        throw new TypeError(`${name} must be a positive integer`);
      }
    }
  }

  /**
   * A starter for one call: its `start()` creates the task.
   *
   * @returns the starter
   */
  starter(): TaskStarter {
    let handle: TaskHandle | undefined;
    let creating: Promise<void> | undefined;
    let resolveStarted!: (handle: TaskHandle) => void;
    const started = new Promise<TaskHandle>((resolve) => {
      resolveStarted = resolve;
    });
    return {
      get handle() {
        return handle;
      },
      started,
      start: () => {
        creating ??= this.#create().then((h) => {
          handle = h;
          resolveStarted(h);
        });
        return creating;
      },
    };
  }

  /** The `CreateTaskResult` of a task just created. */
  async created(taskId: string): Promise<Record<string, unknown>> {
    const record = await this.#store.get(taskId);
    if (record === undefined) throw new InvalidParamsError(`Unknown task: ${taskId}`);
    return defined({
      resultType: 'task',
      taskId: record.taskId,
      status: record.status,
      statusMessage: record.statusMessage,
      createdAt: record.createdAt,
      lastUpdatedAt: record.lastUpdatedAt,
      ttlMs: record.ttlMs,
      pollIntervalMs: record.pollIntervalMs,
    });
  }

  /**
   * Records the end of a task's handler: its result, or its error (a `JsonRpcError` fails the
   * task; any other error completes it with an `isError` result, as a synchronous call would).
   * A task cancelled meanwhile stays cancelled.
   */
  async settle(
    taskId: string,
    outcome: { result: Record<string, unknown> } | { error: unknown },
  ): Promise<void> {
    let change: Partial<TaskRecord>;
    if ('result' in outcome) change = { status: 'completed', result: outcome.result };
    else if (outcome.error instanceof JsonRpcError) {
      const { code, message, data } = outcome.error;
      const error: TaskError = data === undefined ? { code, message } : { code, message, data };
      change = { status: 'failed', error };
    } else {
      const text = outcome.error instanceof Error ? outcome.error.message : String(outcome.error);
      change = {
        status: 'completed',
        result: { content: [{ type: 'text', text }], isError: true },
      };
    }
    try {
      await this.#store.update(taskId, (record) =>
        TERMINAL_TASK_STATUSES.has(record.status)
          ? undefined
          : {
              ...record,
              ...change,
              inputRequests: undefined,
              inputResponses: undefined,
              lastUpdatedAt: new Date().toISOString(),
            },
      );
    } finally {
      wake(this.#local.get(taskId));
      this.#local.delete(taskId);
    }
  }

  /**
   * Answers `tasks/get`: the task, with its questions, result or error inlined.
   *
   * @param params - `{ taskId }`
   * @returns the detailed task
   * @throws InvalidParamsError for an unknown or expired task
   */
  async get(params: Record<string, unknown>): Promise<Record<string, unknown>> {
    const record = await this.#store.get(taskIdOf(params));
    if (record === undefined) throw unknownTask(params.taskId);
    const pending =
      record.status === 'input_required' && record.inputRequests !== undefined
        ? record.inputRequests
        : undefined;
    return defined({
      taskId: record.taskId,
      status: record.status,
      statusMessage: record.statusMessage,
      createdAt: record.createdAt,
      lastUpdatedAt: record.lastUpdatedAt,
      ttlMs: record.ttlMs,
      pollIntervalMs: record.pollIntervalMs,
      inputRequests: pending,
      result: record.status === 'completed' ? record.result : undefined,
      error: record.status === 'failed' ? record.error : undefined,
    });
  }

  /**
   * Answers `tasks/update`: the answers to questions the task asked (others are ignored). The
   * task stays `input_required` until every question is answered.
   *
   * @param params - `{ taskId, inputResponses }`
   * @returns an empty acknowledgment
   * @throws InvalidParamsError for an unknown task or `inputResponses` that is not an object
   */
  async update(params: Record<string, unknown>): Promise<Record<string, unknown>> {
    const taskId = taskIdOf(params);
    const responses = params.inputResponses;
    if (!isRecord(responses)) throw new InvalidParamsError('"inputResponses" must be an object');
    const record = await this.#store.update(taskId, (task) => {
      if (TERMINAL_TASK_STATUSES.has(task.status)) return undefined;
      const requests = { ...task.inputRequests };
      const answered = { ...task.inputResponses };
      let changed = false;
      for (const [key, value] of Object.entries(responses)) {
        if (!Object.hasOwn(requests, key)) continue;
        delete requests[key];
        answered[key] = value;
        changed = true;
      }
      if (!changed) return undefined;
      const waiting = Object.keys(requests).length > 0;
      return {
        ...task,
        status: waiting ? 'input_required' : 'working',
        inputRequests: waiting ? requests : undefined,
        inputResponses: answered,
        lastUpdatedAt: new Date().toISOString(),
      };
    });
    if (record === undefined) throw unknownTask(taskId);
    wake(this.#local.get(taskId));
    return {};
  }

  /**
   * Answers `tasks/cancel`: a running task becomes `cancelled` and its handler's signal is
   * aborted; a finished one is left as it is.
   *
   * @param params - `{ taskId }`
   * @returns an empty acknowledgment
   * @throws InvalidParamsError for an unknown task
   */
  async cancel(params: Record<string, unknown>): Promise<Record<string, unknown>> {
    const taskId = taskIdOf(params);
    const record = await this.#store.update(taskId, (task) =>
      TERMINAL_TASK_STATUSES.has(task.status)
        ? undefined
        : {
            ...task,
            status: 'cancelled',
            statusMessage: 'Cancelled by the client',
            inputRequests: undefined,
            inputResponses: undefined,
            lastUpdatedAt: new Date().toISOString(),
          },
    );
    if (record === undefined) throw unknownTask(taskId);
    const local = this.#local.get(taskId);
    local?.abort.abort(new Error('The task was cancelled'));
    wake(local);
    return {};
  }

  /**
   * Ends the tasks this process runs: each becomes `failed` (-32603, the server closed) and its
   * handler's signal is aborted. Tasks run by other processes are left alone.
   *
   * @returns resolves once they are recorded
   */
  async close(): Promise<void> {
    const running = [...this.#local];
    this.#local.clear();
    await Promise.all(
      running.map(async ([taskId, local]) => {
        const error: TaskError = {
          code: -32603,
          message: 'The server closed before the task ended',
        };
        await this.#store
          .update(taskId, (task) =>
            TERMINAL_TASK_STATUSES.has(task.status)
              ? undefined
              : {
                  ...task,
                  status: 'failed',
                  error,
                  inputRequests: undefined,
                  inputResponses: undefined,
                  lastUpdatedAt: new Date().toISOString(),
                },
          )
          .catch(() => undefined);
        local.abort.abort(new Error(error.message));
        wake(local);
      }),
    );
  }

  async #create(): Promise<TaskHandle> {
    const now = new Date().toISOString();
    const record: TaskRecord = {
      taskId: randomId(),
      status: 'working',
      createdAt: now,
      lastUpdatedAt: now,
      ttlMs: this.#ttlMs,
      pollIntervalMs: this.#pollIntervalMs,
    };
    await this.#store.create(record);
    const taskId = record.taskId;
    const abort = new AbortController();
    const local: Local = { abort, waiters: new Set() };
    this.#local.set(taskId, local);
    // Cancellations made on another process: look in the store now and then.
    const watch = setInterval(async () => {
      if (!this.#local.has(taskId)) {
        clearInterval(watch);
        return;
      }
      const now = await this.#store.get(taskId).catch(() => undefined);
      if (now === undefined || now.status === 'cancelled') {
        abort.abort(new Error('The task was cancelled'));
        wake(local);
      }
    }, this.#pollIntervalMs);
    (watch as { unref?: () => void }).unref?.();
    abort.signal.addEventListener('abort', () => clearInterval(watch), { once: true });
    let count = 0;
    const store = this.#store;
    const interval = this.#pollIntervalMs;
    return {
      taskId,
      signal: abort.signal,
      async report(message) {
        await store.update(taskId, (task) =>
          TERMINAL_TASK_STATUSES.has(task.status)
            ? undefined
            : { ...task, statusMessage: message, lastUpdatedAt: new Date().toISOString() },
        );
      },
      async ask(method, params, key) {
        const k = key ?? `${method}#${count}`;
        count++;
        const request: InputRequest = { method, params };
        await store.update(taskId, (task) =>
          TERMINAL_TASK_STATUSES.has(task.status)
            ? undefined
            : {
                ...task,
                status: 'input_required',
                inputRequests: { ...task.inputRequests, [k]: request },
                lastUpdatedAt: new Date().toISOString(),
              },
        );
        for (;;) {
          abort.signal.throwIfAborted();
          const task = await store.get(taskId);
          if (task === undefined || TERMINAL_TASK_STATUSES.has(task.status)) {
            abort.abort(new Error('The task ended'));
            abort.signal.throwIfAborted();
          }
          if (task?.inputResponses !== undefined && Object.hasOwn(task.inputResponses, k)) {
            const answer = task.inputResponses[k];
            await store.update(taskId, (t) => {
              if (t.inputResponses === undefined || !Object.hasOwn(t.inputResponses, k)) {
                return undefined;
              }
              const { [k]: _taken, ...rest } = t.inputResponses;
              return { ...t, inputResponses: Object.keys(rest).length > 0 ? rest : undefined };
            });
            return answer;
          }
          await new Promise<void>((resolve) => {
            const timer = setTimeout(done, interval);
            function done() {
              clearTimeout(timer);
              local.waiters.delete(done);
              abort.signal.removeEventListener('abort', done);
              resolve();
            }
            local.waiters.add(done);
            abort.signal.addEventListener('abort', done, { once: true });
          });
        }
      },
    };
  }
}

function taskIdOf(params: Record<string, unknown>): string {
  const taskId = params.taskId;
  if (typeof taskId !== 'string') throw new InvalidParamsError('"taskId" must be a string');
  return taskId;
}

function unknownTask(taskId: unknown): InvalidParamsError {
  return new InvalidParamsError(`Unknown task: ${String(taskId)}`, { taskId });
}
