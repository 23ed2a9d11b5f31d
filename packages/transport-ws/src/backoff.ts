/**
 * The client transport's reconnect policy: core's backoff shape ({@link BackoffOptions}) and this
 * transport's defaults.
 *
 * @module
 */
import type { BackoffOptions } from '@jsonrpc-kit/core';
import type { ResolvedBackoffOptions } from '@jsonrpc-kit/core/engine';

/**
 * How a client transport reconnects after its socket drops: core's {@link BackoffOptions}
 * (`strategy`, `delay`, `maxDelay`, `jitter`, `maxAttempts`), with {@link DEFAULT_RECONNECT}
 * for what is unset.
 *
 * @example
 * ```ts
 * const reconnect: ReconnectOptions = { strategy: 'exponential', delay: 250, maxDelay: 10_000 };
 * ```
 */
export type ReconnectOptions = BackoffOptions;

/** {@link ReconnectOptions} with every member set. */
export type ResolvedReconnectOptions = ResolvedBackoffOptions;

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
