/**
 * Reconnect delays: fixed, or exponential with jitter and a cap.
 *
 * @module
 */

/** How a client transport reconnects after its socket drops. */
export interface ReconnectOptions {
  /** `fixed`: always `delay`; `exponential`: `delay * 2^(attempt-1)` up to `maxDelay`. */
  readonly strategy?: 'fixed' | 'exponential' | undefined;
  /** The first (or every, for `fixed`) delay in ms. */
  readonly delay?: number | undefined;
  /** The largest delay in ms. */
  readonly maxDelay?: number | undefined;
  /** The share of each delay, from 0 to 1, taken off at random (spreads reconnect storms). */
  readonly jitter?: number | undefined;
  /** Failed attempts in a row after which the transport closes. */
  readonly maxAttempts?: number | undefined;
}

/** {@link ReconnectOptions} with every member set. */
export type ResolvedReconnectOptions = {
  readonly [K in keyof ReconnectOptions]-?: Exclude<ReconnectOptions[K], undefined>;
};

/**
 * The reconnect policy of client transports: exponential from 500 ms up to 30 s, up to half of
 * each delay taken off at random, never giving up.
 *
 * @default { strategy: 'exponential', delay: 500, maxDelay: 30_000, jitter: 0.5, maxAttempts: Infinity }
 */
export const DEFAULT_RECONNECT: ResolvedReconnectOptions = Object.freeze({
  strategy: 'exponential',
  delay: 500,
  maxDelay: 30_000,
  jitter: 0.5,
  maxAttempts: Number.POSITIVE_INFINITY,
});

/**
 * Fills the unset members of reconnect options with {@link DEFAULT_RECONNECT}.
 *
 * @param options - what the user gave
 * @returns complete options
 * @throws RangeError when a delay is negative or `jitter` is outside 0..1
 * @example
 * ```ts
 * resolveReconnect({ strategy: 'fixed', delay: 100 }).maxAttempts; // Infinity
 * ```
 */
export function resolveReconnect(options: ReconnectOptions): ResolvedReconnectOptions {
  const resolved: ResolvedReconnectOptions = {
    strategy: options.strategy ?? DEFAULT_RECONNECT.strategy,
    delay: options.delay ?? DEFAULT_RECONNECT.delay,
    maxDelay: options.maxDelay ?? Math.max(DEFAULT_RECONNECT.maxDelay, options.delay ?? 0),
    jitter: options.jitter ?? DEFAULT_RECONNECT.jitter,
    maxAttempts: options.maxAttempts ?? DEFAULT_RECONNECT.maxAttempts,
  };
  if (!(resolved.delay >= 0) || !(resolved.maxDelay >= 0)) {
    throw new RangeError('reconnect: delay and maxDelay must be >= 0');
  }
  if (!(resolved.jitter >= 0 && resolved.jitter <= 1)) {
    throw new RangeError('reconnect: jitter must be between 0 and 1');
  }
  if (!(resolved.maxAttempts >= 0)) throw new RangeError('reconnect: maxAttempts must be >= 0');
  return resolved;
}

/**
 * The delay before a reconnect attempt.
 *
 * @param attempt - 1 for the first attempt after a drop
 * @param options - the complete policy
 * @param random - a source of numbers in [0, 1)
 * @returns milliseconds to wait
 * @example
 * ```ts
 * reconnectDelay(3, { ...DEFAULT_RECONNECT, jitter: 0 }); // 2000
 * ```
 */
export function reconnectDelay(
  attempt: number,
  options: ResolvedReconnectOptions,
  random: () => number = Math.random,
): number {
  const base =
    options.strategy === 'fixed'
      ? options.delay
      : Math.min(options.maxDelay, options.delay * 2 ** Math.max(0, attempt - 1));
  return options.jitter === 0 ? base : base - base * options.jitter * random();
}
