export type { CallContextOptions } from './call-context.js';
export {
  DEFAULT_BATCH_CONCURRENCY,
  DEFAULT_MAX_BATCH_SIZE,
  DEFAULT_MAX_CONCURRENCY,
  DEFAULT_MAX_QUEUE,
  DEFAULT_PROXY_MAX_MESSAGE_BYTES,
} from './defaults.js';
export type { ServerErrorInfo, ServerOptions } from './options.js';
export type { ProxyTarget, ProxyUpstream, UpstreamHandlers } from './proxy.js';
export { createProxy } from './proxy.js';
export { createServer } from './server.js';
export type { Connection, Server } from './server-types.js';
export type { SubscriptionFanout } from './subscription-fanout.js';
export type {
  ContractProducers,
  OverflowPolicy,
  Producer,
  ProducerOptions,
  SubscriptionContext,
  Subscriptions,
  SubscriptionsOptions,
} from './subscription-types.js';
export {
  DEFAULT_QUEUE_BYTES_PER_CONNECTION,
  DEFAULT_SUBSCRIPTION_QUEUE,
  DEFAULT_SUBSCRIPTIONS_PER_CONNECTION,
} from './subscription-types.js';
export { createSubscriptions } from './subscriptions.js';
export type {
  ContractHandler,
  ContractImplementation,
  Handler,
  HandlerContext,
  ImplementOptions,
  MethodDescriptor,
  MiddlewareContext,
  NotificationHandler,
  NotificationMethodOptions,
  SchemaParams,
  SchemaResult,
  ServerMethodOptions,
  ServerMiddleware,
} from './types.js';
