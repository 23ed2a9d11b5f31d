/**
 * Where the streaming handler keeps its sessions, behind the few operations it uses, so that
 * another table (shared between processes, say) can stand in for the in-process `Map`.
 *
 * @module
 */

/** The sessions of one streaming handler, by id. Internal. */
export interface SessionTable<S> {
  /** The session with this id, if any. */
  get(id: string): S | undefined;
  /** Keeps a session under its id. */
  set(id: string, session: S): void;
  /** Forgets a session. */
  delete(id: string): void;
  /** Every session kept, in the order they were added. */
  values(): IterableIterator<S>;
  /** How many sessions are kept. */
  readonly size: number;
}

/**
 * The in-process table: a `Map`. Every operation is O(1) but `values()`.
 *
 * @returns an empty table
 */
export function createSessionTable<S>(): SessionTable<S> {
  const map = new Map<string, S>();
  return {
    get: (id) => map.get(id),
    set: (id, session) => {
      map.set(id, session);
    },
    delete: (id) => {
      map.delete(id);
    },
    values: () => map.values(),
    get size() {
      return map.size;
    },
  };
}
