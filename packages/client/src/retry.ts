/**
 * `retry()`: a client middleware that repeats idempotent requests that failed for a reason worth
 * retrying, with exponential backoff.
 *
 * @module
 */
import {
  ConnectionClosedError,
  isJsonRpcError,
  type Middleware,
  TimeoutError,
  TransportError,
} from '@jsonrpc-kit/core';
import { checkOptionNames, type OptionNames } from '@jsonrpc-kit/core/engine';
import type { ClientCall } from './types.js';

/** Options of {@link retry}. */
export interface RetryOptions {
  /** Which methods are safe to repeat. Only those are retried. */
  readonly idempotent: (method: string) => boolean;
  /** Most attempts in all (the first one included). @default 3 */
  readonly attempts?: number;
  /** Milliseconds before the second attempt; doubles each time. @default 100 */
  readonly delay?: number;
  /** Longest wait between attempts. @default 5000 */
  readonly maxDelay?: number;
  /**
   * Whether an error is worth another attempt.
   * @default a TransportError, a TimeoutError, or a wire error -32002 (server busy)
   */
  readonly shouldRetry?: (error: unknown) => boolean;
}

const defaultShouldRetry = (error: unknown): boolean =>
  error instanceof TransportError ||
  error instanceof TimeoutError ||
  (isJsonRpcError(error) && error.code === -32002);

/** Every name of {@link RetryOptions}. */
const RETRY_OPTION_NAMES: OptionNames<RetryOptions> = {
  idempotent: true,
  attempts: true,
  delay: true,
  maxDelay: true,
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
 * client.use(retry({ idempotent: (method) => method.startsWith('get'), attempts: 4 }));
 * ```
 */
export function retry(options: RetryOptions): Middleware<ClientCall> {
  checkOptionNames('retry', options, RETRY_OPTION_NAMES);
  const attempts = options.attempts ?? 3;
  const first = options.delay ?? 100;
  const maxDelay = options.maxDelay ?? 5000;
  const shouldRetry = options.shouldRetry ?? defaultShouldRetry;
  return async (call, next) => {
    if (call.kind !== 'request' || !options.idempotent(call.method)) return next();
    let wait = first;
    for (let attempt = 1; ; attempt++) {
      try {
        // Each attempt is a new request: the client's chain lets next() run again.
        return await next();
      } catch (error) {
        const signal = call.options.signal;
        if (
          attempt >= attempts ||
          signal?.aborted === true ||
          error instanceof ConnectionClosedError ||
          !shouldRetry(error)
        ) {
          throw error;
        }
      }
      await new Promise((resolve) => setTimeout(resolve, wait));
      wait = Math.min(wait * 2, maxDelay);
    }
  };
}
