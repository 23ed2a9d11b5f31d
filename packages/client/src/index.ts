export type {
  BatchBuilder,
  BatchEntry,
  BatchNotification,
  BatchRequest,
  BatchResult,
  BatchResults,
} from './batch.js';
export { createClient } from './client.js';
export type {
  CallFunction,
  ClientContractOptions,
  ContractStub,
  ContractStubFunction,
  ContractSubscribeOptions,
  OptionalTail,
  ParamsStyle,
  SubscribeFunction,
} from './contract-stub.js';
export {
  DEFAULT_BATCH_MAX_SIZE,
  DEFAULT_BATCH_WAIT,
  DEFAULT_CALL_TIMEOUT,
  DEFAULT_LATE_ANSWER_MEMORY,
} from './defaults.js';
export { ResultValidationError } from './errors.js';
export type {
  ErrorCodePolicy,
  ParseResponseOptions,
  ResponseChecker,
  ResponseChecks,
} from './response-checks.js';
export {
  JSONRPC1_RESPONSE_CHECKS,
  parseResponse,
  responseChecks,
  STRICT_RESPONSE_CHECKS,
} from './response-checks.js';
export type { RetryOptions } from './retry.js';
export { DEFAULT_RETRY, retry } from './retry.js';
export type { PromisifiedStub, StubOptions } from './stub.js';
export type { SubscribeOptions, Subscription } from './subscription-handle.js';
export { DEFAULT_MAX_BUFFERED } from './subscription-handle.js';
export type {
  AutoBatchOptions,
  Client,
  ClientCall,
  ClientOptions,
  ClientRequestOptions,
} from './types.js';
