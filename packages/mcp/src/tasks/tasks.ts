/**
 * The Tasks extension (`io.modelcontextprotocol/tasks`, SEP-2663): a `tools/call` of a tool that
 * supports tasks is answered at once with a `CreateTaskResult` while the tool runs on; the client
 * polls `tasks/get` (the result, or the error, inlined once it is done), answers the questions the
 * tool asks (`input_required`, `inputRequests`) with `tasks/update`, and can `tasks/cancel` it.
 * The server alone decides when a call becomes a task: the handler calls `ctx.startTask()`.
 * Everything about a task is in a {@link TaskStore}; the handler's continuation stays in the
 * process that runs it, and finds answers and cancellations made on other processes by polling
 * the store. Here is {@link TaskManager}, which answers `tasks/*`; the capability is in
 * `extension.ts`, a running task's handle in `handle.ts`, the store in `store.ts`.
 *
 * @module
 */
import { InvalidParamsError, JsonRpcError } from '@jsonrpc-kit/core';
import { defined, isRecord } from '../records.js';
import type { TaskOptions } from './extension.js';
import { type Local, runTask, type TaskHandle, type TaskStarter, wake } from './handle.js';
import {
  createMemoryTaskStore,
  type TaskError,
  type TaskRecord,
  type TaskStore,
  TERMINAL_TASK_STATUSES,
} from './store.js';

export {
  declaresTasks,
  requiredTaskError,
  TASKS_EXTENSION_ID,
  type TaskOptions,
  type TaskSupport,
  tasksNotDeclaredError,
} from './extension.js';
export type { TaskHandle, TaskStarter } from './handle.js';

function randomId(): string {
  const bytes = crypto.getRandomValues(new Uint8Array(16));
  return Array.from(bytes, (b) => b.toString(16).padStart(2, '0')).join('');
}

/** The members every task answer carries (`CreateTaskResult` and `tasks/get`). */
function taskFields(record: TaskRecord) {
  return {
    taskId: record.taskId,
    status: record.status,
    statusMessage: record.statusMessage,
    createdAt: record.createdAt,
    lastUpdatedAt: record.lastUpdatedAt,
    ttlMs: record.ttlMs,
    pollIntervalMs: record.pollIntervalMs,
  };
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
    return defined({ resultType: 'task', ...taskFields(record) });
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
      ...taskFields(record),
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
    return runTask(this.#store, record.taskId, this.#pollIntervalMs, this.#local);
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
