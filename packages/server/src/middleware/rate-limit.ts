/**
 * Rate limiting middleware: a token bucket per connection or per key, answering -32002 when empty.
 *
 * @module
 */
import { ServerBusyError } from '@jsonrpc-kit/core';
import { checkOptionNames, type OptionNames } from '@jsonrpc-kit/core/engine';
import type { MiddlewareContext, ServerMiddleware } from '../types.js';
import { monotonicNow } from './call-outcome.js';

/** A token bucket: `capacity` tokens, refilled continuously at `refillPerSecond`. */
export interface TokenBucket {
  /**
   * Takes tokens when there are enough.
   *
   * @param cost - how many tokens
   * @returns `true` when taken, `false` when the bucket has too few
   */
  take(cost?: number): boolean;
  /** Tokens available now (fractional). */
  readonly tokens: number;
}

/** Options of {@link createTokenBucket}. */
export interface TokenBucketOptions {
  /** Most tokens the bucket holds (the burst). A bucket starts full. */
  readonly capacity: number;
  /** Tokens added per second. */
  readonly refillPerSecond: number;
  /**
   * The clock, in milliseconds.
   * @default performance.now
   */
  readonly now?: () => number;
}

function checkRates(capacity: number, refillPerSecond: number): void {
  if (!(capacity > 0) || !Number.isFinite(capacity)) {
    throw new TypeError('capacity must be a finite number > 0');
  }
  if (!(refillPerSecond >= 0) || !Number.isFinite(refillPerSecond)) {
    throw new TypeError('refillPerSecond must be a finite number >= 0');
  }
}

/** Every name of {@link TokenBucketOptions}. */
const TOKEN_BUCKET_OPTION_NAMES: OptionNames<TokenBucketOptions> = {
  capacity: true,
  refillPerSecond: true,
  now: true,
};

/**
 * Creates a token bucket.
 *
 * @param options - capacity, refill rate, clock
 * @returns the bucket, full
 * @throws TypeError when capacity is not > 0 or the refill rate is negative
 * @example
 * ```ts
 * const bucket = createTokenBucket({ capacity: 10, refillPerSecond: 5 });
 * if (!bucket.take()) throw new ServerBusyError('Rate limit exceeded');
 * ```
 */
export function createTokenBucket(options: TokenBucketOptions): TokenBucket {
  checkOptionNames('createTokenBucket', options, TOKEN_BUCKET_OPTION_NAMES);
  const { capacity, refillPerSecond } = options;
  checkRates(capacity, refillPerSecond);
  const now = options.now ?? monotonicNow;
  let tokens = capacity;
  let last = now();
  const refill = (): void => {
    const t = now();
    if (t > last) {
      tokens = Math.min(capacity, tokens + ((t - last) / 1000) * refillPerSecond);
      last = t;
    }
  };
  return {
    take(cost = 1) {
      refill();
      if (tokens < cost) return false;
      tokens -= cost;
      return true;
    },
    get tokens() {
      refill();
      return tokens;
    },
  };
}

/** Options of {@link rateLimit}. */
export interface RateLimitOptions {
  /** Burst size: calls allowed at once from a full bucket. */
  readonly capacity: number;
  /** Calls allowed per second, sustained. */
  readonly refillPerSecond: number;
  /**
   * Which bucket a call takes from. Without it: one bucket per duplex connection (`ctx.peer`),
   * else per remote address (HTTP), else one bucket for everything.
   */
  readonly key?: (ctx: MiddlewareContext) => string;
  /**
   * How many keyed buckets are kept; the least recently used is dropped beyond it (a dropped key
   * starts again with a full bucket). Per-connection buckets live as long as their connection.
   * @default DEFAULT_RATE_LIMIT_MAX_KEYS (10000)
   */
  readonly maxKeys?: number;
  /**
   * Tokens one call costs.
   * @default 1
   */
  readonly cost?: (ctx: MiddlewareContext) => number;
  /**
   * The clock, in milliseconds.
   * @default performance.now
   */
  readonly now?: () => number;
}

/** A keyed bucket, in the list of keys from least to most recently used. */
interface KeyedEntry {
  readonly key: string;
  readonly bucket: TokenBucket;
  prev: KeyedEntry | undefined;
  next: KeyedEntry | undefined;
}

/**
 * The keyed buckets, at most `max`, the least recently used dropped first: a `Map` to find a key's
 * entry and a list of entries in order of use, so that a call costs O(1) however many keys are
 * kept. (A `Map` kept in order by deleting and setting a key again on every use is not: V8 leaves
 * the deleted entry in its hash chain until the table is rebuilt, so a busy key's lookups walk
 * one dead copy of it per earlier use, up to the number of keys kept.)
 */
class KeyedBuckets {
  readonly #entries = new Map<string, KeyedEntry>();
  #oldest: KeyedEntry | undefined = undefined;
  #newest: KeyedEntry | undefined = undefined;
  readonly #max: number;
  readonly #make: () => TokenBucket;

  constructor(max: number, make: () => TokenBucket) {
    this.#max = max;
    this.#make = make;
  }

  /** The bucket of a key, made when it has none; the key becomes the most recently used. */
  get(key: string): TokenBucket {
    let entry = this.#entries.get(key);
    if (entry === undefined) {
      if (this.#entries.size >= this.#max) {
        const oldest = this.#oldest!;
        this.#unlink(oldest);
        this.#entries.delete(oldest.key);
      }
      entry = { key, bucket: this.#make(), prev: undefined, next: undefined };
      this.#entries.set(key, entry);
    } else if (entry === this.#newest) {
      return entry.bucket;
    } else {
      this.#unlink(entry);
    }
    entry.prev = this.#newest;
    if (this.#newest === undefined) this.#oldest = entry;
    else this.#newest.next = entry;
    this.#newest = entry;
    return entry.bucket;
  }

  #unlink(entry: KeyedEntry): void {
    const { prev, next } = entry;
    if (prev === undefined) this.#oldest = next;
    else prev.next = next;
    if (next === undefined) this.#newest = prev;
    else next.prev = prev;
    entry.prev = entry.next = undefined;
  }
}

/**
 * Default bound on keyed buckets of {@link rateLimit}.
 * @default 10000
 */
export const DEFAULT_RATE_LIMIT_MAX_KEYS: number = 10_000;

/** Every name of {@link RateLimitOptions}. */
const RATE_LIMIT_OPTION_NAMES: OptionNames<RateLimitOptions> = {
  capacity: true,
  refillPerSecond: true,
  key: true,
  maxKeys: true,
  cost: true,
  now: true,
};

/**
 * Rate limiting: a token bucket per connection (or per key); a call that finds its bucket empty
 * is answered -32002 (`ServerBusyError`, `data: { retryAfterMs }`) without reaching the handler.
 * Notifications take tokens too; when refused they are dropped (reported to `onError`).
 *
 * @param options - capacity, refill rate, key, key bound
 * @returns the middleware
 * @throws TypeError when capacity is not > 0 or the refill rate is negative
 * @example
 * ```ts
 * server.use(rateLimit({ capacity: 20, refillPerSecond: 10 }));
 * server.use(rateLimit({ capacity: 5, refillPerSecond: 1, key: (ctx) => String(ctx.transport.auth) }));
 * ```
 */
export function rateLimit(options: RateLimitOptions): ServerMiddleware {
  checkOptionNames('rateLimit', options, RATE_LIMIT_OPTION_NAMES);
  const { capacity, refillPerSecond, key, cost } = options;
  checkRates(capacity, refillPerSecond);
  const maxKeys = Math.max(1, options.maxKeys ?? DEFAULT_RATE_LIMIT_MAX_KEYS);
  const now = options.now ?? monotonicNow;
  const bucketOptions = { capacity, refillPerSecond, now };
  const byPeer = new WeakMap<object, TokenBucket>();
  const byKey = new KeyedBuckets(maxKeys, () => createTokenBucket(bucketOptions));
  let global: TokenBucket | undefined;

  const bucketOf = (ctx: MiddlewareContext): TokenBucket => {
    if (key) return byKey.get(key(ctx));
    if (ctx.peer !== undefined) {
      let bucket = byPeer.get(ctx.peer);
      if (bucket === undefined) byPeer.set(ctx.peer, (bucket = createTokenBucket(bucketOptions)));
      return bucket;
    }
    if (ctx.transport.remoteAddress !== undefined) return byKey.get(ctx.transport.remoteAddress);
    return (global ??= createTokenBucket(bucketOptions));
  };

  return (ctx, next) => {
    const bucket = bucketOf(ctx);
    const n = cost ? cost(ctx) : 1;
    if (!bucket.take(n)) {
      const missing = n - bucket.tokens;
      const retryAfterMs =
        refillPerSecond > 0 ? Math.ceil((missing / refillPerSecond) * 1000) : undefined;
      return Promise.reject(
        new ServerBusyError(
          'Rate limit exceeded',
          retryAfterMs === undefined ? undefined : { retryAfterMs },
        ),
      );
    }
    return next();
  };
}
