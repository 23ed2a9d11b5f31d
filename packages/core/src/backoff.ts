/**
 * Backoff: how long to wait before each attempt in a row (a client transport reconnecting, a
 * child process started again): fixed, or exponential with jitter and a cap. One shape and one
 * helper for every transport that retries.
 *
 * @module
 */
import { checkOptionNames, type OptionNames } from './option-names.js';

/**
 * How a transport waits between attempts in a row: the shape of the WebSocket transport's
 * `reconnect` and the stdio transport's `respawn` options. Each transport documents its own
 * defaults.
 *
 * @example
 * ```ts
 * const backoff: BackoffOptions = { strategy: 'exponential', delay: 250, maxDelay: 10_000 };
 * ```
 */
export interface BackoffOptions {
  /** `fixed`: always `delay`; `exponential`: `delay * 2^(attempt-1)` up to `maxDelay`. */
  readonly strategy?: 'fixed' | 'exponential' | undefined;
  /** The first (or every, for `fixed`) delay in ms. */
  readonly delay?: number | undefined;
  /**
   * The largest delay in ms. Unset, it is the transport's default, or `delay` when that is
   * larger.
   */
  readonly maxDelay?: number | undefined;
  /** The share of each delay, from 0 to 1, taken off at random (spreads reconnect storms). */
  readonly jitter?: number | undefined;
  /** Failed attempts in a row after which the transport gives up and closes. */
  readonly maxAttempts?: number | undefined;
}

/** Every name of {@link BackoffOptions}. */
const BACKOFF_OPTION_NAMES: OptionNames<BackoffOptions> = {
  strategy: true,
  delay: true,
  maxDelay: true,
  jitter: true,
  maxAttempts: true,
};

/** {@link BackoffOptions} with every member set. */
export type ResolvedBackoffOptions = {
  readonly [K in keyof BackoffOptions]-?: Exclude<BackoffOptions[K], undefined>;
};

/**
 * Fills the unset members of backoff options from a transport's defaults and checks them.
 *
 * @param options - what the user gave
 * @param defaults - the transport's defaults
 * @param name - the option's name, for the errors (`reconnect`, `respawn`)
 * @param renamed - when given, the options' names are checked too: an unknown name is refused,
 *   and one of these old names is refused naming what replaced it (`{ maxRetries: 'maxAttempts' }`)
 * @param extra - further names the options may have beside the backoff's (`maxQueue`)
 * @returns complete options (the backoff members only)
 * @throws RangeError when a delay or `maxAttempts` is negative (or not a number), or `jitter`
 *   is outside 0..1
 * @throws TypeError for an unknown name, when `renamed` is given
 * @example
 * ```ts
 * const defaults = { strategy: 'exponential', delay: 100, maxDelay: 5000, jitter: 0, maxAttempts: 5 } as const;
 * resolveBackoff({ delay: 10_000 }, defaults, 'retry').maxDelay; // 10000
 * ```
 */
export function resolveBackoff(
  options: BackoffOptions,
  defaults: ResolvedBackoffOptions,
  name: string,
  renamed?: Readonly<Record<string, string>>,
  extra?: Readonly<Record<string, true>>,
): ResolvedBackoffOptions {
  if (renamed !== undefined) {
    checkOptionNames(
      name,
      options,
      extra === undefined ? BACKOFF_OPTION_NAMES : { ...BACKOFF_OPTION_NAMES, ...extra },
      renamed,
    );
  }
  const resolved: ResolvedBackoffOptions = {
    strategy: options.strategy ?? defaults.strategy,
    delay: options.delay ?? defaults.delay,
    maxDelay: options.maxDelay ?? Math.max(defaults.maxDelay, options.delay ?? 0),
    jitter: options.jitter ?? defaults.jitter,
    maxAttempts: options.maxAttempts ?? defaults.maxAttempts,
  };
  for (const member of ['delay', 'maxDelay', 'maxAttempts'] as const) {
    if (!(resolved[member] >= 0)) throw new RangeError(`${name}: ${member} must be >= 0`);
  }
  if (!(resolved.jitter >= 0 && resolved.jitter <= 1)) {
    throw new RangeError(`${name}: jitter must be between 0 and 1`);
  }
  return resolved;
}

/**
 * The delay before an attempt: `delay` for `fixed`; for `exponential`, `delay` doubled per
 * attempt after the first, at most `maxDelay`; then up to the `jitter` share of it taken off at
 * random (never added).
 *
 * @param attempt - 1 for the first attempt in a row
 * @param options - the complete options ({@link resolveBackoff})
 * @param random - a source of numbers in [0, 1)
 * @default random Math.random
 * @returns milliseconds to wait
 * @example
 * ```ts
 * const options = { strategy: 'exponential', delay: 500, maxDelay: 30_000, jitter: 0, maxAttempts: 10 } as const;
 * backoffDelay(3, options); // 2000
 * ```
 */
export function backoffDelay(
  attempt: number,
  options: ResolvedBackoffOptions,
  random: () => number = Math.random,
): number {
  const base =
    options.strategy === 'fixed'
      ? options.delay
      : Math.min(options.maxDelay, options.delay * 2 ** Math.max(0, attempt - 1));
  return options.jitter === 0 ? base : base - base * options.jitter * random();
}
