export {
  DEFAULT_BATCH_CONCURRENCY,
  DEFAULT_MAX_BATCH_SIZE,
  DEFAULT_MAX_CONCURRENCY,
  DEFAULT_MAX_QUEUE,
  DEFAULT_MAX_REQUEST_BYTES,
} from './defaults.js';
export { createServer } from './server.js';
export type {
  ContractProducers,
  OverflowPolicy,
  Producer,
  ProducerOptions,
  SubscriptionContext,
  Subscriptions,
  SubscriptionsOptions,
} from './subscriptions.js';
export { createSubscriptions, DEFAULT_SUBSCRIPTION_QUEUE } from './subscriptions.js';
export type {
  Connection,
  ContractHandler,
  ContractImplementation,
  ErrorInfo,
  Handler,
  HandlerContext,
  ImplementOptions,
  MethodDescriptor,
  MethodOptions,
  Middleware,
  MiddlewareContext,
  NotificationHandler,
  NotificationMethodOptions,
  Server,
  ServerOptions,
} from './types.js';
