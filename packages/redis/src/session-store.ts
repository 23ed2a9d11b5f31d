/**
 * A Redis store of streaming-HTTP sessions, so that a session started on one process continues
 * on any other behind a load balancer.
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

/** The prefix of each session's key. @default "jsonrpc-kit:session:" */
export const DEFAULT_SESSION_KEY_PREFIX = 'jsonrpc-kit:session:';

/** Options of {@link createRedisSessionStore}. */
export interface RedisSessionStoreOptions extends RedisConnectionOptions {
  /**
   * Prefix of each session's Redis key (`<keyPrefix><sessionId>`).
   *
   * @default {@link DEFAULT_SESSION_KEY_PREFIX}
   */
  readonly keyPrefix?: string | undefined;
}

/** The names of {@link RedisSessionStoreOptions} beside the connection's. */
const SESSION_STORE_OPTION_NAMES: OptionNames<
  Omit<RedisSessionStoreOptions, keyof RedisConnectionOptions>
> = {
  keyPrefix: true,
};

/** What a process needs to continue a session it did not start (the transport's `SessionRecord`). */
export interface RedisSessionRecord {
  /** The id of the session's own stream, once it has one. */
  readonly streamId?: string | undefined;
  /**
   * Who the session is bound to (the streaming handler's principal of the request that opened
   * it): a request of another principal is refused on every process.
   */
  readonly principal?: string | undefined;
}

/**
 * A session store on Redis; it has the shape of the streaming-HTTP transport's `SessionStore`,
 * so it can be given as `sessions: { store }` to `createStreamableHttpHandler()`. Its records are
 * any JSON object `R`: with another key prefix it keeps other per-session records too (an MCP
 * server's `clients`).
 *
 * @typeParam R - the records it keeps
 */
export interface RedisSessionStore<R extends object = RedisSessionRecord> {
  /**
   * Records a new session: one key holding its record as JSON, expiring after `ttl`.
   *
   * @param id - the session id
   * @param record - its record
   * @param ttl - milliseconds it lives without a `touch` (`Infinity`: no expiry)
   * @returns resolves once stored
   * @throws Error when Redis refuses or cannot be reached
   */
  create(id: string, record: R, ttl: number): Promise<void>;
  /**
   * Finds a session and, with a `ttl`, renews its expiry in the same command (`GETEX`).
   *
   * @param id - the session id
   * @param ttl - milliseconds it lives from now, when found (`Infinity`: no expiry)
   * @returns its record, or `undefined` when it never was, expired or was deleted
   * @throws Error when Redis cannot be reached (the handler then keeps serving its own sessions)
   */
  lookup(id: string, ttl?: number): Promise<R | undefined>;
  /**
   * Extends a session's life; with a record, replaces its record too. Does nothing for a session
   * that is gone.
   *
   * @param id - the session id
   * @param ttl - milliseconds it lives from now (`Infinity`: no expiry)
   * @param record - its new record
   * @returns resolves once done
   */
  touch(id: string, ttl: number, record?: R): Promise<void>;
  /**
   * Forgets a session.
   *
   * @param id - the session id
   * @returns resolves once deleted
   */
  delete(id: string): Promise<void>;
  /**
   * Closes the connection. Idempotent.
   *
   * @returns resolves when closed
   */
  close(): Promise<void>;
  /** Closes the store (as `close()`). */
  [Symbol.asyncDispose](): Promise<void>;
}

/** The expiry arguments of `SET` for a ttl. */
function expiry(ttl: number): string[] {
  return Number.isFinite(ttl) ? ['PX', String(Math.max(1, Math.ceil(ttl)))] : [];
}

/**
 * Creates a session store on Redis for the streaming-HTTP handler. With a shared event store
 * (`createRedisEventStore()`), a client's next request, or its stream resumption with
 * `Last-Event-ID`, may land on any process.
 *
 * @typeParam R - the records it keeps (the transport's session records by default)
 * @param options - where Redis is and the key prefix
 * @returns the store, connected
 * @throws Error when Redis cannot be reached
 * @example
 * ```ts
 * import { createRedisEventStore, createRedisSessionStore } from '@jsonrpc-kit/redis';
 * import { createServer } from '@jsonrpc-kit/server';
 * import { createStreamableHttpNodeHandler } from '@jsonrpc-kit/transport-http';
 *
 * const url = 'redis://127.0.0.1:6379';
 * const handler = createStreamableHttpNodeHandler(createServer(), {
 *   sessions: { store: await createRedisSessionStore({ url }) },
 *   eventStore: await createRedisEventStore({ url }),
 * });
 * ```
 */
export async function createRedisSessionStore<R extends object = RedisSessionRecord>(
  options: RedisSessionStoreOptions = {},
): Promise<RedisSessionStore<R>> {
  checkRedisOptions('createRedisSessionStore', options, SESSION_STORE_OPTION_NAMES);
  const prefix = options.keyPrefix ?? DEFAULT_SESSION_KEY_PREFIX;
  const connection = await openConnection(options);
  const close = closeOnce(connection);

  return {
    async create(id, record, ttl) {
      await connection.sendCommand(['SET', prefix + id, JSON.stringify(record), ...expiry(ttl)]);
    },
    async lookup(id, ttl) {
      const renew = ttl === undefined ? [] : Number.isFinite(ttl) ? expiry(ttl) : ['PERSIST'];
      const text = await connection.sendCommand(['GETEX', prefix + id, ...renew]);
      if (text === null || text === undefined) return undefined;
      try {
        return JSON.parse(String(text)) as R;
      } catch {
        return {} as R;
      }
    },
    async touch(id, ttl, record) {
      const key = prefix + id;
      if (record !== undefined) {
        // XX: only while it exists (a deleted session stays deleted).
        await connection.sendCommand(['SET', key, JSON.stringify(record), 'XX', ...expiry(ttl)]);
      } else if (Number.isFinite(ttl)) {
        await connection.sendCommand(['PEXPIRE', key, expiry(ttl)[1]!]);
      }
    },
    async delete(id) {
      await connection.sendCommand(['DEL', prefix + id]);
    },
    close,
    [asyncDisposeSymbol]: () => close(),
  } as RedisSessionStore<R>;
}
