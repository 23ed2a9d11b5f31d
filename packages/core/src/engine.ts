/**
 * The engine of jsonrpc-kit, for authors of transports and of packages built on the kit: the
 * session (the duplex engine the server's connections and the client run on), its call tables,
 * the incoming-call runner, envelope scanners, backoff, the queues and maps the engine keeps, and the
 * helpers the packages share. Applications use the main entry, `@jsonrpc-kit/core`.
 *
 * @module
 */
export type { ResolvedBackoffOptions } from './backoff.js';
export { backoffDelay, resolveBackoff } from './backoff.js';
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
} from './call-context.js';
export type { ErrorHandler, RunnerReport } from './call-failures.js';
export type { CodecWireForm } from './codec.js';
export { decodeResults, jsonReaderOf, jsonWriterOf, withDecodedParams } from './codec.js';
export type { MaybeSchema, MethodExample, MethodTag, ParamsShape } from './contract.js';
export { checkParamNames, contractName, paramNamesOf, paramsShapeOf } from './contract.js';
export type { Deferred } from './deferred.js';
export { deferred } from './deferred.js';
export { asyncDisposeSymbol } from './dispose.js';
export type { ConnectionHandler, ConnectionLike, MessageHandler } from './endpoint.js';
export type { MessageEnvelope } from './envelope.js';
export { headIdText, scanHead } from './envelope-head.js';
export type { EnvelopeScanner } from './envelope-scanner.js';
export { createEnvelopeScanner, scanEnvelope } from './envelope-scanner.js';
export type { ErrorCodeValue, ProtocolErrorOptions, TransportErrorOptions } from './errors.js';
export { classifyErrorCode } from './errors.js';
export { FifoQueue } from './fifo-queue.js';
export type { IncomingCall, IncomingCalls } from './incoming.js';
export { createIncomingCalls } from './incoming.js';
export type { IncomingRunner, IncomingRunnerOptions, RunnerCall } from './incoming-runner.js';
export { createIncomingRunner } from './incoming-runner.js';
export type { ParseJsonOptions } from './json.js';
export { duplicateMemberOf, MAX_BIGINT_DIGITS, parseJson, stringifyJson } from './json.js';
export { skipJsonSpace, skipJsonString, skipJsonValue } from './json-skip.js';
export {
  serializeError1,
  serializeNotification1,
  serializeRequest1,
  serializeSuccess1,
} from './jsonrpc1.js';
export {
  DEFAULT_HIGH_WATER_MARK,
  DEFAULT_MAX_CONNECTIONS,
  DEFAULT_MAX_CONNECTIONS_PER_ADDRESS,
} from './limits.js';
export type { MiddlewareList } from './middleware.js';
export { createMiddlewareList, runMiddleware } from './middleware.js';
export type { OptionNames } from './option-names.js';
export { checkOptionNames } from './option-names.js';
export type {
  BatchCallOptions,
  BatchMember,
  BatchOptions,
  BatchSent,
  HeldBatch,
} from './outgoing-batch.js';
export type {
  ParsedBatch,
  ParsedInvalid,
  ParsedMessage,
  ParsedNotification,
  ParsedRequest,
  ParsedResponse,
} from './parse.js';
export type {
  GiveUpReason,
  PendingCallOptions,
  PendingCalls,
  PendingCallsOptions,
} from './pending.js';
export { createPendingCalls } from './pending.js';
export { createReporter, DEFAULT_ON_ERROR_LEVEL } from './report.js';
export type {
  StandardSchemaIssue,
  StandardSchemaPathSegment,
  StandardSchemaProps,
  StandardSchemaResult,
} from './schema.js';
export { checkSchema, formatIssues, isStandardSchema, validate } from './schema.js';
export { sendError } from './send-error.js';
export { stringifyId, UNSERIALIZABLE_RESULT } from './serialize.js';
export type { Session, SessionAnswer, SessionDispatch, SessionOptions } from './session.js';
export { createSession } from './session.js';
export type { SubscribeCall } from './subscription.js';
export { isPromiseLike } from './thenable.js';
export { toError } from './to-error.js';
export { SENT } from './transport.js';
export type { TransportState } from './transport-state.js';
export { createTransportState } from './transport-state.js';
export { TurnoverMap } from './turnover-map.js';
