export type { BackoffOptions } from './backoff.js';
export type { CallContext } from './call-context.js';
export { withCallContext } from './call-context.js';
export type { Codec, SuperjsonCodecOptions, SuperjsonLike } from './codec.js';
export { losslessNumbers, superjsonCodec } from './codec.js';
export type {
  ContentDescriptorDocs,
  Contract,
  ContractEntry,
  ContractOptions,
  DeclaredError,
  DeclaredErrorCode,
  ExternalDocs,
  ItemInput,
  ItemOutput,
  MethodDefinition,
  MethodDocs,
  MethodDocsOf,
  MethodError,
  MethodNames,
  MethodOptions,
  NotificationDefinition,
  NotificationNames,
  NotificationOptions,
  ParamsInput,
  ParamsOutput,
  ResultInput,
  ResultOutput,
  SubscriptionDefinition,
  SubscriptionNames,
  SubscriptionOptions,
} from './contract.js';
export {
  defineContract,
  isDeclaredError,
  method,
  notification,
  subscription,
} from './contract.js';
export type {
  IncomingContext,
  IncomingNotificationHandler,
  IncomingRequestHandler,
  Peer,
  RequestOptions,
  TransportContext,
  TransportHeaders,
} from './endpoint.js';
export type {
  CallInfo,
  JsonRpcErrorOptions,
  LocalErrorCodeValue,
} from './errors.js';
export {
  AbortError,
  BatchTooLargeError,
  ConnectionClosedError,
  ErrorCode,
  fromErrorObject,
  InternalError,
  InvalidParamsError,
  InvalidRequestError,
  isJsonRpcError,
  JsonRpcError,
  LocalError,
  LocalErrorCode,
  MethodNotFoundError,
  ParseError,
  ProtocolError,
  RequestCancelledError,
  RequestTimeoutError,
  RequestTooLargeError,
  ServerBusyError,
  TimeoutError,
  TransportError,
} from './errors.js';
export type { JsonRpc1 } from './jsonrpc1.js';
export { jsonrpc1 } from './jsonrpc1.js';
export { DEFAULT_CLIENT_MAX_MESSAGE_BYTES, DEFAULT_MAX_MESSAGE_BYTES } from './limits.js';
export { createMemoryTransportPair } from './memory-transport.js';
export type {
  JsonRpcBatch,
  JsonRpcErrorObject,
  JsonRpcErrorResponse,
  JsonRpcId,
  JsonRpcMessage,
  JsonRpcNotification,
  JsonRpcParams,
  JsonRpcRequest,
  JsonRpcResponse,
  JsonRpcSuccessResponse,
} from './messages.js';
export {
  isBatch,
  isErrorObject,
  isErrorResponse,
  isJsonRpcId,
  isNotification,
  isRequest,
  isResponse,
  isSuccessResponse,
} from './messages.js';
export type { Middleware } from './middleware.js';
export type { ParseOptions, ParseResult } from './parse.js';
export { parse } from './parse.js';
export type {
  CancellationProtocol,
  McpProgress,
  Profile,
  ProgressProtocol,
  ProgressReporter,
  ProgressToken,
} from './protocols.js';
export {
  defaultCancellation,
  defaultProfile,
  LSP_REQUEST_CANCELLED,
  lspProfile,
  mcpProfile,
} from './protocols.js';
export type { ErrorInfo, ErrorKind, ErrorLevel } from './report.js';
export type { InferInput, InferOutput, StandardSchemaV1, WireIssue } from './schema.js';
export {
  serializeBatch,
  serializeError,
  serializeNotification,
  serializeRequest,
  serializeSuccess,
} from './serialize.js';
export type {
  SubscriptionDialect,
  SubscriptionDialectOptions,
  SubscriptionErrorCode,
} from './subscription.js';
export {
  createSubscriptionDialect,
  ethereumSubscriptions,
  genericSubscriptions,
  SubscriptionError,
} from './subscription.js';
export type { SendOptions, Transport, TransportHandler } from './transport.js';
