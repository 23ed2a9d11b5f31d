/**
 * Where the tasks of the Tasks extension live: a small store interface (create, read, change one
 * task atomically) and its in-memory default, bounded by a count and a lifetime. A store shared
 * by several processes (Redis, a database) lets a task started on one process be polled,
 * answered and cancelled on another.
 *
 * @module
 */
import type { InputRequest } from '../mrtr.js';

/** A task's status: running, waiting for the client, or one of the three ends. */
export type TaskStatus = 'working' | 'input_required' | 'completed' | 'failed' | 'cancelled';

/** The statuses a task does not leave. */
export const TERMINAL_TASK_STATUSES: ReadonlySet<TaskStatus> = new Set([
  'completed',
  'failed',
  'cancelled',
]);

/** The error of a failed task (a JSON-RPC error object). */
export interface TaskError {
  /** The JSON-RPC error code. */
  readonly code: number;
  /** What went wrong. */
  readonly message: string;
  /** More about it. */
  readonly data?: unknown;
}

/** One task, as a store keeps it (plain JSON). */
export interface TaskRecord {
  /** Its id (the server makes it: random, hard to guess). */
  readonly taskId: string;
  /** Its status. */
  readonly status: TaskStatus;
  /** A message for people about the status. */
  readonly statusMessage?: string | undefined;
  /** When it was created (ISO 8601). */
  readonly createdAt: string;
  /** When it last changed (ISO 8601). */
  readonly lastUpdatedAt: string;
  /** Milliseconds from its creation that it is kept. */
  readonly ttlMs: number;
  /** How often, in milliseconds, a client should poll it. */
  readonly pollIntervalMs?: number;
  /** The questions it waits on (status `input_required`), by key. */
  readonly inputRequests?: Readonly<Record<string, InputRequest>> | undefined;
  /** Answers the client gave that the running handler has not taken yet, by key. */
  readonly inputResponses?: Readonly<Record<string, unknown>> | undefined;
  /** The tool's result (status `completed`). */
  readonly result?: Readonly<Record<string, unknown>> | undefined;
  /** The error (status `failed`). */
  readonly error?: TaskError | undefined;
}

/**
 * Keeps tasks. Every method may be asynchronous; `update` must be atomic for one task (two
 * processes changing the same task must not lose a change).
 */
export interface TaskStore {
  /**
   * Stores a new task; resolves once a `get` of it (from any process) finds it.
   *
   * @param record - the task
   * @throws Error when the store cannot take it (full)
   */
  create(record: TaskRecord): Promise<void>;
  /**
   * Reads a task.
   *
   * @param taskId - its id
   * @returns the task, or `undefined` when unknown or expired
   */
  get(taskId: string): Promise<TaskRecord | undefined>;
  /**
   * Changes a task atomically.
   *
   * @param taskId - its id
   * @param change - given the task now, returns its new state, or `undefined` to leave it
   * @returns the task after the change (as it was, when left), or `undefined` when unknown
   */
  update(
    taskId: string,
    change: (record: TaskRecord) => TaskRecord | undefined,
  ): Promise<TaskRecord | undefined>;
}

/** Options of {@link createMemoryTaskStore}. */
export interface MemoryTaskStoreOptions {
  /**
   * The most tasks kept. A new task past it drops the expired ones, then the oldest finished
   * one; when every task is still running the new one is refused.
   *
   * @default 1000
   */
  readonly maxTasks?: number;
}

function expired(record: TaskRecord, now: number): boolean {
  return Date.parse(record.createdAt) + record.ttlMs <= now;
}

/**
 * The in-memory task store of one process: bounded by `maxTasks`, each task dropped once its
 * `ttlMs` from creation has passed.
 *
 * @param options - the most tasks kept
 * @returns the store
 * @throws TypeError when `maxTasks` is not a positive integer
 */
export function createMemoryTaskStore(options: MemoryTaskStoreOptions = {}): TaskStore {
  const maxTasks = options.maxTasks ?? 1000;
  if (!Number.isInteger(maxTasks) || maxTasks < 1) {
    throw new TypeError('maxTasks must be a positive integer');
  }
  const tasks = new Map<string, TaskRecord>();
  const live = (taskId: string): TaskRecord | undefined => {
    const record = tasks.get(taskId);
    if (record !== undefined && expired(record, Date.now())) {
      tasks.delete(taskId);
      return undefined;
    }
    return record;
  };
  return {
    async create(record) {
      if (tasks.size >= maxTasks) {
        const now = Date.now();
        for (const [id, task] of tasks) if (expired(task, now)) tasks.delete(id);
      }
      if (tasks.size >= maxTasks) {
        for (const [id, task] of tasks) {
          if (TERMINAL_TASK_STATUSES.has(task.status)) {
            tasks.delete(id);
            break;
          }
        }
      }
      if (tasks.size >= maxTasks) throw new Error(`The task store is full (${maxTasks} tasks)`);
      tasks.set(record.taskId, record);
    },
    async get(taskId) {
      return live(taskId);
    },
    async update(taskId, change) {
      const record = live(taskId);
      if (record === undefined) return undefined;
      const next = change(record);
      if (next === undefined) return record;
      tasks.set(taskId, next);
      return next;
    },
  };
}
