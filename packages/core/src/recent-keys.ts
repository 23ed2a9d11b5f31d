/**
 * A bounded memory of the keys added last, for membership checks.
 *
 * @module
 */
import { TurnoverMap } from './turnover-map.js';

/** Emptied slots at the front of the order that make it worth cutting them off in one copy. */
const MIN_CUT = 64;

/**
 * The last `limit` distinct keys added: adding one past the limit forgets the oldest, in O(1).
 * A `Set` trimmed through `values().next()` costs O(limit) per addition instead: V8 leaves the
 * slot of a deleted entry in place until the table is rebuilt, and a new iterator walks them all.
 * Internal.
 */
export class RecentKeys<K> {
  readonly #limit: number;
  readonly #keys = new TurnoverMap<K, true>();
  /** The keys in the order they were added: `order[head..]` (slots before `head` are emptied). */
  #order: (K | undefined)[] = [];
  #head = 0;

  /** @param limit - most keys remembered */
  constructor(limit: number) {
    this.#limit = limit;
  }

  /** Remembers a key (one already remembered keeps its place); the oldest goes past the limit. */
  add(key: K): void {
    if (this.#keys.has(key)) return;
    this.#keys.set(key, true);
    this.#order.push(key);
    if (this.#keys.size <= this.#limit) return;
    this.#keys.delete(this.#order[this.#head] as K);
    this.#order[this.#head++] = undefined;
    // Cut off once they are half the array: each key is copied at most once more on average.
    if (this.#head >= MIN_CUT && this.#head * 2 >= this.#order.length) {
      this.#order = this.#order.slice(this.#head);
      this.#head = 0;
    }
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
    this.#order = [];
    this.#head = 0;
  }
}
