/**
 * Where the streaming handler records which sessions exist, so that a session started on one
 * process can be continued on another: the interface a shared store implements (Redis in
 * `@jsonrpc-kit/redis`), and the in-memory default.
 *
 * @module
 */

/** What a process needs to continue a session it did not start. */
export interface SessionRecord {
  /** The id of the session's own stream (the one its GET opened), once it has one. */
  readonly streamId?: string | undefined;
  /**
   * Who the session is bound to (the principal of the request that opened it, when the handler
   * has `authenticate`): a request of another principal is refused on every process. A store
   * keeps it as it keeps `streamId`.
   */
  readonly principal?: string | undefined;
}

/**
 * Records the sessions of a streaming endpoint. Give several processes the same shared store
 * (and a shared event store) and a request of a session may land on any of them. Each call may
 * answer synchronously or with a promise.
 */
export interface SessionStore {
  /**
   * Records a new session.
   *
   * @param id - the session id
   * @param record - what others need to continue it
   * @param ttl - milliseconds it lives without a `touch`
   */
  create(id: string, record: SessionRecord, ttl: number): void | Promise<void>;
  /**
   * Finds a session and, with a `ttl`, keeps it alive that much longer (the handler looks up on
   * every request of a session, so this is its one store call per request).
   *
   * @param id - the session id
   * @param ttl - milliseconds it lives from now, when found
   * @returns its record, or `undefined` when it never was, expired or was deleted
   */
  lookup(id: string, ttl?: number): SessionRecord | undefined | Promise<SessionRecord | undefined>;
  /**
   * Keeps a session alive for `ttl` more milliseconds; with a record, replaces its record too.
   *
   * @param id - the session id
   * @param ttl - milliseconds it lives from now
   * @param record - its new record
   */
  touch(id: string, ttl: number, record?: SessionRecord): void | Promise<void>;
  /**
   * Forgets a session (the client ended it, or the server closed it).
   *
   * @param id - the session id
   */
  delete(id: string): void | Promise<void>;
}

/** Fewest sessions the in-memory store takes between two sweeps for expired ones. */
const SWEEP_EVERY = 1024;

/**
 * The in-memory {@link SessionStore}: sessions of this process only. An expired session is
 * forgotten when it is looked up, and the ones nobody looks up again are swept out as new ones
 * are created (a full pass once the store has taken as many new sessions as it holds, at least
 * 1,024), so its memory follows the sessions alive, at O(1) per session.
 *
 * @param now - the clock, for tests
 * @default now Date.now
 * @returns the store
 * @example
 * ```ts
 * const store = createMemorySessionStore();
 * store.create('s1', {}, 60_000);
 * console.log(store.lookup('s1')); // {}
 * ```
 */
export function createMemorySessionStore(now: () => number = Date.now): SessionStore {
  const sessions = new Map<string, { readonly record: SessionRecord; until: number }>();
  /** Sessions still to create before the next sweep: as many as the last one left. */
  let untilSweep = SWEEP_EVERY;
  const sweep = (): void => {
    const at = now();
    for (const [id, entry] of sessions) if (entry.until < at) sessions.delete(id);
    untilSweep = Math.max(SWEEP_EVERY, sessions.size);
  };
  return {
    create(id, record, ttl) {
      if (--untilSweep <= 0) sweep();
      sessions.set(id, { record, until: now() + ttl });
    },
    lookup(id, ttl) {
      const entry = sessions.get(id);
      if (entry === undefined) return undefined;
      if (entry.until < now()) {
        sessions.delete(id);
        return undefined;
      }
      if (ttl !== undefined) entry.until = now() + ttl;
      return entry.record;
    },
    touch(id, ttl, record) {
      const entry = sessions.get(id);
      if (entry !== undefined)
        sessions.set(id, { record: record ?? entry.record, until: now() + ttl });
    },
    delete(id) {
      sessions.delete(id);
    },
  };
}
