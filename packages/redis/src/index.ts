export type { RedisConnectionOptions } from './connection.js';
export { DEFAULT_COMMAND_TIMEOUT, DEFAULT_MAX_RECONNECT_DELAY } from './connection.js';
export type { RedisEventStore, RedisEventStoreOptions } from './event-store.js';
export {
  createRedisEventStore,
  DEFAULT_REDIS_EVENT_STORE_MAX_AGE,
  DEFAULT_REDIS_EVENT_STORE_MAX_EVENTS,
} from './event-store.js';
export type {
  FanoutListener,
  FanoutTextListener,
  RedisFanout,
  RedisFanoutOptions,
} from './fanout.js';
export {
  createRedisFanout,
  DEFAULT_CHANNEL_PREFIX,
  DEFAULT_MAX_QUEUED_PUBLISHES,
} from './fanout.js';
export type {
  RedisQueueClientTransport,
  RedisQueueClientTransportOptions,
} from './queue-client-options.js';
export {
  DEFAULT_MAX_QUEUED_SENDS,
  DEFAULT_QUEUE_FORGET_AFTER,
  QUEUE_RECOUNT_MS,
} from './queue-client-options.js';
export { createRedisQueueClientTransport } from './queue-client-transport.js';
export type { RedisQueueOptions } from './queue-keys.js';
export {
  DEFAULT_MAX_BACKLOG,
  DEFAULT_REPLY_TTL_SECONDS,
  deadLetterKey,
} from './queue-keys.js';
export type {
  RedisQueueWorkerTransport,
  RedisQueueWorkerTransportOptions,
} from './queue-worker-options.js';
export {
  DEFAULT_MAX_DELIVERIES,
  DEFAULT_VISIBILITY_TIMEOUT,
  DEFAULT_WORKER_CONCURRENCY,
} from './queue-worker-options.js';
export { createRedisQueueWorkerTransport } from './queue-worker-transport.js';
export type {
  RedisSessionRecord,
  RedisSessionStore,
  RedisSessionStoreOptions,
} from './session-store.js';
export { createRedisSessionStore, DEFAULT_SESSION_KEY_PREFIX } from './session-store.js';
export type { RedisTaskLike, RedisTaskStore, RedisTaskStoreOptions } from './task-store.js';
export {
  createRedisTaskStore,
  DEFAULT_TASK_KEY_PREFIX,
  MAX_TASK_UPDATE_ATTEMPTS,
} from './task-store.js';
