/**
 * A task as its handler sees it while it runs: {@link TaskHandle} (its signal, its questions to
 * the client, its status message), {@link TaskStarter}, and the process-local part of a running
 * task (its abort controller, the waiters woken by answers and cancellations).
 *
 * @module
 */
import type { InputRequest } from '../mrtr.js';
import { type TaskStore, TERMINAL_TASK_STATUSES } from './store.js';

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
/** What this process holds of a task it runs. */
export interface Local {
  /** Aborted when the task is cancelled or ends. */
  readonly abort: AbortController;
  /** Woken when the task's record may have changed. */
  readonly waiters: Set<() => void>;
}

/**
 * Wakes the waiters of a running task (an answer or a cancellation may have come).
 *
 * @param local - the task's local part, if this process runs it
 */
export function wake(local: Local | undefined): void {
  if (local === undefined) return;
  for (const waiter of [...local.waiters]) waiter();
}

/**
 * The handle of a task just stored: registers its local part, watches the store for
 * cancellations made on other processes, and asks and reports through the store.
 *
 * @param store - where the task lives
 * @param taskId - the task's id
 * @param pollIntervalMs - how often the store is looked in
 * @param locals - the tasks this process runs, by id
 * @returns the handle
 */
export function runTask(
  store: TaskStore,
  taskId: string,
  pollIntervalMs: number,
  locals: Map<string, Local>,
): TaskHandle {
  const abort = new AbortController();
  const local: Local = { abort, waiters: new Set() };
  locals.set(taskId, local);
  // Cancellations made on another process: look in the store now and then.
  const watch = setInterval(async () => {
    if (!locals.has(taskId)) {
      clearInterval(watch);
      return;
    }
    const now = await store.get(taskId).catch(() => undefined);
    if (now === undefined || now.status === 'cancelled') {
      abort.abort(new Error('The task was cancelled'));
      wake(local);
    }
  }, pollIntervalMs);
  (watch as { unref?: () => void }).unref?.();
  abort.signal.addEventListener('abort', () => clearInterval(watch), { once: true });
  let count = 0;
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
          const timer = setTimeout(done, pollIntervalMs);
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
