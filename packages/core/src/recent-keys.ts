/**
 * A bounded memory of the keys added last, for membership checks.
 *
 * @module
 */
import { FifoQueue } from './fifo-queue.js';
import { TurnoverMap } from './turnover-map.js';

/**
 * The last `limit` distinct keys added: adding one past the limit forgets the oldest, in O(1).
 * A `Set` trimmed through `values().next()` costs O(limit) per addition instead: V8 leaves the
 * slot of a deleted entry in place until the table is rebuilt, and a new iterator walks them all.
 * Internal.
 */
export class RecentKeys<K> {
  readonly #limit: number;
  readonly #keys = new TurnoverMap<K, true>();
  /** The keys in the order they were added. */
  readonly #order = new FifoQueue<K>();

  /** @param limit - most keys remembered */
  constructor(limit: number) {
    this.#limit = limit;
  }

  /** Remembers a key (one already remembered keeps its place); the oldest goes past the limit. */
  add(key: K): void {
    if (this.#keys.has(key)) return;
    this.#keys.set(key, true);
    this.#order.push(key);
    if (this.#keys.size > this.#limit) this.#keys.delete(this.#order.shift() as K);
  }

  /** Whether a key is remembered. */
  has(key: K): boolean {
    return this.#keys.has(key);
  }

  /** How many keys are remembered. */
  get size(): number {
    return this.#keys.size;
  }

  /** Forgets every key. */
  clear(): void {
    this.#keys.clear();
    this.#order.clear();
  }
}
