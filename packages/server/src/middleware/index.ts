/**
 * Server middleware with no dependencies: structured logging, metrics and rate limiting, for
 * `server.use()`. Imported from `@jsonrpc-kit/server/middleware`.
 *
 * @module
 */
export { errorCodeOf, errorMessageOf } from './call-outcome.js';
export type { LogEntry, LoggingOptions, LogLevel } from './logging.js';
export { DEFAULT_LOG_LEVEL, logging } from './logging.js';
export type {
  MethodMetrics,
  MetricsOptions,
  MetricsRecorder,
  MetricsRegistry,
  MetricsRegistryOptions,
  MetricsSnapshot,
} from './metrics.js';
export {
  createMetricsRegistry,
  DEFAULT_DURATION_BUCKETS,
  DEFAULT_MAX_METHODS,
  metrics,
  OTHER_METHOD,
} from './metrics.js';
export type { RateLimitOptions, TokenBucket, TokenBucketOptions } from './rate-limit.js';
export { createTokenBucket, DEFAULT_RATE_LIMIT_MAX_KEYS, rateLimit } from './rate-limit.js';
