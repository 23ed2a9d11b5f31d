/**
 * `retry()`: a client middleware that repeats idempotent requests that failed for a reason worth
 * retrying, with exponential backoff.
 *
 * @module
 */
import {
  type BackoffOptions,
  ConnectionClosedError,
  isJsonRpcError,
  type Middleware,
  TimeoutError,
  TransportError,
} from '@jsonrpc-kit/core';
import {
  backoffDelay,
  type OptionNames,
  type ResolvedBackoffOptions,
  resolveBackoff,
} from '@jsonrpc-kit/core/engine';
import type { ClientCall } from './types.js';

/**
 * Options of {@link retry}: which methods, and core's backoff shape ({@link BackoffOptions}),
 * with {@link DEFAULT_RETRY} for what is unset. `maxAttempts` counts every attempt, the first
 * one included.
 */
export interface RetryOptions extends BackoffOptions {
  /** Which methods are safe to repeat. Only those are retried. */
  readonly idempotent: (method: string) => boolean;
  /**
   * Whether an error is worth another attempt.
   * @default a TransportError, a TimeoutError, or a wire error -32002 (server busy)
   */
  readonly shouldRetry?: (error: unknown) => boolean;
}

/**
 * The backoff of {@link retry}: 100 ms before the second attempt, doubling, at most 5 s, no
 * jitter, three attempts in all.
 *
 * @default { strategy: 'exponential', delay: 100, maxDelay: 5000, jitter: 0, maxAttempts: 3 }
 */
export const DEFAULT_RETRY: ResolvedBackoffOptions = Object.freeze({
  strategy: 'exponential',
  delay: 100,
  maxDelay: 5000,
  jitter: 0,
  maxAttempts: 3,
});

const defaultShouldRetry = (error: unknown): boolean =>
  error instanceof TransportError ||
  error instanceof TimeoutError ||
  (isJsonRpcError(error) && error.code === -32002);

/** The names of {@link RetryOptions} beside the backoff's. */
const RETRY_OWN_NAMES: OptionNames<Omit<RetryOptions, keyof BackoffOptions>> = {
  idempotent: true,
  shouldRetry: true,
};

/**
 * Makes a retry middleware for `client.use()`. Notifications, non-idempotent methods and calls
 * whose signal aborted are never repeated; a closed client is not retried either.
 *
 * @param options - which methods, how many attempts, the backoff
 * @returns the middleware
 * @example
 * ```ts
 * client.use(retry({ idempotent: (method) => method.startsWith('get'), maxAttempts: 4 }));
 * ```
 */
export function retry(options: RetryOptions): Middleware<ClientCall> {
  const backoff = resolveBackoff(
    options,
    DEFAULT_RETRY,
    'retry',
    { attempts: 'maxAttempts' },
    RETRY_OWN_NAMES,
  );
  const shouldRetry = options.shouldRetry ?? defaultShouldRetry;
  return async (call, next) => {
    if (call.kind !== 'request' || !options.idempotent(call.method)) return next();
    for (let attempt = 1; ; attempt++) {
      try {
        // Each attempt is a new request: the client's chain lets next() run again.
        return await next();
      } catch (error) {
        const signal = call.options.signal;
        if (
          attempt >= backoff.maxAttempts ||
          signal?.aborted === true ||
          error instanceof ConnectionClosedError ||
          !shouldRetry(error)
        ) {
          throw error;
        }
      }
      await new Promise((resolve) => setTimeout(resolve, backoffDelay(attempt, backoff)));
    }
  };
}
