/**
 * A Redis store of MCP tasks (the Tasks extension of `@jsonrpc-kit/mcp`), so that a task started
 * on one process can be polled, answered and cancelled on any other.
 *
 * @module
 */
import { asyncDisposeSymbol, type OptionNames } from '@jsonrpc-kit/core/engine';
import {
  checkRedisOptions,
  closeOnce,
  openConnection,
  type RedisConnectionOptions,
} from './connection.js';

/** The prefix of each task's key. @default "jsonrpc-kit:mcp-task:" */
export const DEFAULT_TASK_KEY_PREFIX = 'jsonrpc-kit:mcp-task:';

/** How many times {@link RedisTaskStore.update} tries when other processes keep changing the task. */
export const MAX_TASK_UPDATE_ATTEMPTS = 50;

/** Options of {@link createRedisTaskStore}. */
export interface RedisTaskStoreOptions extends RedisConnectionOptions {
  /**
   * Prefix of each task's Redis key (`<keyPrefix><taskId>`).
   *
   * @default {@link DEFAULT_TASK_KEY_PREFIX}
   */
  readonly keyPrefix?: string | undefined;
}

/** The names of {@link RedisTaskStoreOptions} beside the connection's. */
const TASK_STORE_OPTION_NAMES: OptionNames<
  Omit<RedisTaskStoreOptions, keyof RedisConnectionOptions>
> = {
  keyPrefix: true,
};

/** What the store needs of a task: its id, and how long from now it is kept. */
export interface RedisTaskLike {
  /** The task's id. */
  readonly taskId: string;
  /** Milliseconds it is kept from its creation. */
  readonly ttlMs: number;
}

/**
 * A task store on Redis, of the shape of the mcp package's `TaskStore`: give it as
 * `tasks: { store }` to `createMcpServer()` (with `T` the mcp package's `TaskRecord`).
 */
export interface RedisTaskStore<T extends RedisTaskLike = RedisTaskLike> {
  /**
   * Stores a new task: one key holding it as JSON, expiring after its `ttlMs`.
   *
   * @param record - the task
   * @returns resolves once any process can read it
   * @throws Error when a task has its id already, or Redis refuses or cannot be reached
   */
  create(record: T): Promise<void>;
  /**
   * Reads a task.
   *
   * @param taskId - its id
   * @returns the task, or `undefined` when unknown or expired
   */
  get(taskId: string): Promise<T | undefined>;
  /**
   * Changes a task atomically: the new state is written only if the task did not change since
   * it was read (a compare-and-set script); otherwise it is read again and `change` runs again.
   * The key keeps its expiry.
   *
   * @param taskId - its id
   * @param change - given the task now, returns its new state, or `undefined` to leave it
   * @returns the task after the change (as it was, when left), or `undefined` when unknown
   * @throws Error after {@link MAX_TASK_UPDATE_ATTEMPTS} attempts lost to other writers
   */
  update(taskId: string, change: (record: T) => T | undefined): Promise<T | undefined>;
  /**
   * Closes the connection. Idempotent.
   *
   * @returns resolves when closed
   */
  close(): Promise<void>;
  /** Closes the store (as `close()`). */
  [Symbol.asyncDispose](): Promise<void>;
}

/** Sets KEYS[1] to ARGV[2] (keeping its expiry) only while it still holds ARGV[1]. */
const COMPARE_AND_SET = `if redis.call('GET', KEYS[1]) == ARGV[1] then
  redis.call('SET', KEYS[1], ARGV[2], 'KEEPTTL')
  return 1
end
return 0`;

/**
 * Creates a task store on Redis for the Tasks extension of an MCP server.
 *
 * @param options - where Redis is and the key prefix
 * @returns the store, connected
 * @throws Error when Redis cannot be reached
 * @example
 * ```ts
 * import { createMcpServer, type TaskRecord } from '@jsonrpc-kit/mcp';
 * import { createRedisTaskStore } from '@jsonrpc-kit/redis';
 *
 * const store = await createRedisTaskStore<TaskRecord>({ url: 'redis://127.0.0.1:6379' });
 * const mcp = createMcpServer({ name: 'jobs', version: '1.0.0', tasks: { store } });
 * ```
 */
export async function createRedisTaskStore<T extends RedisTaskLike = RedisTaskLike>(
  options: RedisTaskStoreOptions = {},
): Promise<RedisTaskStore<T>> {
  checkRedisOptions('createRedisTaskStore', options, TASK_STORE_OPTION_NAMES);
  const prefix = options.keyPrefix ?? DEFAULT_TASK_KEY_PREFIX;
  const connection = await openConnection(options);
  const close = closeOnce(connection);
  const read = async (key: string): Promise<[string, T] | undefined> => {
    const text = await connection.sendCommand(['GET', key]);
    if (text === null || text === undefined) return undefined;
    return [String(text), JSON.parse(String(text)) as T];
  };

  return {
    async create(record) {
      const ttl = String(Math.max(1, Math.ceil(record.ttlMs)));
      const key = prefix + record.taskId;
      const set = await connection.sendCommand([
        'SET',
        key,
        JSON.stringify(record),
        'NX',
        'PX',
        ttl,
      ]);
      if (set === null) throw new Error(`A task is already stored as ${record.taskId}`);
    },
    async get(taskId) {
      return (await read(prefix + taskId))?.[1];
    },
    async update(taskId, change) {
      const key = prefix + taskId;
      for (let attempt = 0; attempt < MAX_TASK_UPDATE_ATTEMPTS; attempt++) {
        const current = await read(key);
        if (current === undefined) return undefined;
        const next = change(current[1]);
        if (next === undefined) return current[1];
        const text = JSON.stringify(next);
        const written = await connection.sendCommand([
          'EVAL',
          COMPARE_AND_SET,
          '1',
          key,
          current[0],
          text,
        ]);
        if (Number(written) === 1) return JSON.parse(text) as T;
      }
      throw new Error(
        `Task ${taskId} kept changing: no update after ${MAX_TASK_UPDATE_ATTEMPTS} attempts`,
      );
    },
    close,
    [asyncDisposeSymbol]: () => close(),
  } as RedisTaskStore<T>;
}
