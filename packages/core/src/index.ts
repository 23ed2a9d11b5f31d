export type { BackoffOptions, ResolvedBackoffOptions } from './backoff.js';
export { backoffDelay, resolveBackoff } from './backoff.js';
export type { CallContext } from './call-context.js';
export {
  CONTEXT_TIMEOUT_KEY,
  callContextHeaders,
  DEFAULT_CONTEXT_MEMBER,
  hasCallContext,
  META_HEADER,
  outgoingContext,
  readCallContext,
  readCallContextHeaders,
  TIMEOUT_HEADER,
  withCallContext,
} from './call-context.js';
export type { Codec, CodecWireForm, SuperjsonCodecOptions, SuperjsonLike } from './codec.js';
export {
  decodeResults,
  jsonReaderOf,
  jsonWriterOf,
  losslessNumbers,
  superjsonCodec,
  withDecodedParams,
} from './codec.js';
export type {
  Contract,
  ContractEntry,
  ContractOptions,
  ItemInput,
  ItemOutput,
  MaybeSchema,
  MethodDefinition,
  MethodNames,
  MethodOptions,
  NotificationDefinition,
  NotificationNames,
  NotificationOptions,
  ParamsInput,
  ParamsOutput,
  ParamsShape,
  ResultInput,
  ResultOutput,
  SubscriptionDefinition,
  SubscriptionNames,
  SubscriptionOptions,
} from './contract.js';
export {
  checkParamNames,
  contractName,
  defineContract,
  method,
  notification,
  paramNamesOf,
  paramsShapeOf,
  subscription,
} from './contract.js';
export { asyncDisposeSymbol } from './dispose.js';
export type {
  ConnectionHandler,
  ConnectionLike,
  IncomingContext,
  IncomingNotificationHandler,
  IncomingRequestHandler,
  MessageHandler,
  Peer,
  RequestOptions,
  TransportContext,
  TransportHeaders,
} from './endpoint.js';
export type { EnvelopeScanner, MessageEnvelope } from './envelope.js';
export { createEnvelopeScanner, headIdText, scanEnvelope, scanHead } from './envelope.js';
export type {
  CallInfo,
  ErrorCodeValue,
  JsonRpcErrorOptions,
  LocalErrorCodeValue,
  ProtocolErrorOptions,
  TransportErrorOptions,
} from './errors.js';
export {
  AbortError,
  BatchTooLargeError,
  ConnectionClosedError,
  classifyErrorCode,
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
export type {
  FaultName,
  FaultRates,
  FaultyTransport,
  FaultyTransportOptions,
  InjectedFault,
} from './faulty-transport.js';
export {
  createFaultyTransport,
  DEFAULT_FAULT_DELAY_MS,
  DEFAULT_FAULT_STALL_MS,
  FAULT_NAMES,
} from './faulty-transport.js';
export { FifoQueue } from './fifo-queue.js';
export type { AnswerOptions, HandlerDispatchOptions } from './handlers.js';
export { answerResult, createHandlerDispatch, joinAnswers } from './handlers.js';
export type { IncomingCall, IncomingCalls } from './incoming.js';
export { createIncomingCalls } from './incoming.js';
export type { ParseJsonOptions } from './json.js';
export { duplicateMemberOf, MAX_BIGINT_DIGITS, parseJson, stringifyJson } from './json.js';
export type { JsonRpc1 } from './jsonrpc1.js';
export {
  jsonrpc1,
  serializeError1,
  serializeNotification1,
  serializeRequest1,
  serializeSuccess1,
} from './jsonrpc1.js';
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
export { runMiddleware } from './middleware.js';
export type { OptionNames } from './option-names.js';
export { checkOptionNames } from './option-names.js';
export type {
  ParsedBatch,
  ParsedInvalid,
  ParsedMessage,
  ParsedNotification,
  ParsedRequest,
  ParsedResponse,
  ParseOptions,
  ParseResult,
} from './parse.js';
export { parse } from './parse.js';
export type {
  GiveUpReason,
  PendingCallOptions,
  PendingCalls,
  PendingCallsOptions,
} from './pending.js';
export { createPendingCalls } from './pending.js';
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
export { createReporter, DEFAULT_ON_ERROR_LEVEL } from './report.js';
export type {
  ErrorCodePolicy,
  ParseResponseOptions,
  ResponseChecker,
  ResponseChecks,
  ResponseVerdict,
} from './response-checks.js';
export {
  checkResponse,
  JSONRPC1_RESPONSE_CHECKS,
  parseResponse,
  responseChecks,
  responseChecksOf,
  STRICT_RESPONSE_CHECKS,
} from './response-checks.js';
export type {
  InferInput,
  InferOutput,
  StandardSchemaIssue,
  StandardSchemaPathSegment,
  StandardSchemaProps,
  StandardSchemaResult,
  StandardSchemaV1,
  WireIssue,
} from './schema.js';
export { checkSchema, formatIssues, isStandardSchema, validate } from './schema.js';
export { sendError } from './send-error.js';
export {
  serializeBatch,
  serializeError,
  serializeNotification,
  serializeRequest,
  serializeSuccess,
  stringifyId,
  UNSERIALIZABLE_RESULT,
} from './serialize.js';
export type { Session, SessionAnswer, SessionDispatch, SessionOptions } from './session.js';
export { createSession } from './session.js';
export type {
  SubscribeCall,
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
export type { TapDirection, TransportTap } from './tap-transport.js';
export { tapTransport } from './tap-transport.js';
export { isPromiseLike } from './thenable.js';
export { toError } from './to-error.js';
export type { SendOptions, Transport, TransportHandler } from './transport.js';
export { SENT } from './transport.js';
export type { TransportState } from './transport-state.js';
export { createTransportState } from './transport-state.js';
export { TurnoverMap } from './turnover-map.js';
