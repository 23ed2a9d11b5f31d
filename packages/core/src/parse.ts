/**
 * Classifies untrusted text as JSON-RPC messages, without throwing.
 *
 * @module
 */
import { ErrorCode } from './errors.js';
import type {
  JsonRpcErrorObject,
  JsonRpcId,
  JsonRpcNotification,
  JsonRpcRequest,
  JsonRpcResponse,
} from './messages.js';
import { findRawId } from './raw-id.js';

/** A valid request: answer it with `message.id` (or `rawId`, when set). */
export interface ParsedRequest {
  readonly kind: 'request';
  readonly message: JsonRpcRequest;
  /**
   * The id's exact source text when a JavaScript number cannot hold it exactly (an integer
   * beyond 2^53, a long fraction); `undefined` otherwise. Serializers echo it verbatim.
   */
  readonly rawId: string | undefined;
  /** `true` for a JSON-RPC 1.0 request (read with `jsonrpc1`): answer it in 1.0 form. */
  readonly jsonrpc1?: true;
}

/** A valid notification: never answered. */
export interface ParsedNotification {
  readonly kind: 'notification';
  readonly message: JsonRpcNotification;
}

/** A valid response (success or error). */
export interface ParsedResponse {
  readonly kind: 'response';
  readonly message: JsonRpcResponse;
  /** As {@link ParsedRequest.rawId}. */
  readonly rawId: string | undefined;
}

/** Something that is not a valid message, with the error to answer and the id to answer with. */
export interface ParsedInvalid {
  readonly kind: 'invalid';
  /** The error to answer with: -32700, -32600, or -32602 for params that are not structured. */
  readonly error: JsonRpcErrorObject;
  /** The id to answer with: the message's id where it is valid, else `null`. */
  readonly id: JsonRpcId;
  /** As {@link ParsedRequest.rawId}. */
  readonly rawId: string | undefined;
  /**
   * `true` when nothing should be answered: a notification (no `id` member) whose only fault is
   * its params. Report it; do not answer it.
   */
  readonly silent: boolean;
  /** `true` when the value looked like a response (no `method`; a `result` or `error` member). */
  readonly response: boolean;
  /** The parsed value (`undefined` when the text was not JSON). */
  readonly value: unknown;
}

/** One classified message. */
export type ParsedMessage = ParsedRequest | ParsedNotification | ParsedResponse | ParsedInvalid;

/** A non-empty batch, classified member by member, in order. */
export interface ParsedBatch {
  readonly kind: 'batch';
  readonly messages: readonly ParsedMessage[];
}

/** What {@link parse} returns: one message, a batch, or an invalid message. */
export type ParseResult = ParsedMessage | ParsedBatch;

/** Options of {@link parse}. */
export interface ParseOptions {
  /**
   * Reads the text instead of `JSON.parse` (a codec's lossless reader, say). It throws on text
   * that is not JSON. An integer id read as a `BigInt` keeps its digits as the raw id.
   * @default JSON.parse
   */
  readonly read?: ((text: string) => unknown) | undefined;
  /**
   * Also accept JSON-RPC 1.0 requests: no `jsonrpc` member, params by position (an array) or
   * absent, and `id: null` (or no id) meaning a notification. Such a request is marked
   * `jsonrpc1: true` and its `message` is given in the 2.0 shape.
   * @default false
   */
  readonly jsonrpc1?: boolean | undefined;
}

const PARSE_ERROR: JsonRpcErrorObject = Object.freeze({
  code: ErrorCode.ParseError,
  message: 'Parse error',
});
const INVALID_REQUEST: JsonRpcErrorObject = Object.freeze({
  code: ErrorCode.InvalidRequest,
  message: 'Invalid Request',
});
const INVALID_PARAMS: JsonRpcErrorObject = Object.freeze({
  code: ErrorCode.InvalidParams,
  message: 'Invalid params: params must be an array or an object',
});

const NOT_JSON: ParsedInvalid = Object.freeze({
  kind: 'invalid',
  error: PARSE_ERROR,
  id: null,
  rawId: undefined,
  silent: false,
  response: false,
  value: undefined,
});

function invalid(
  error: JsonRpcErrorObject,
  id: JsonRpcId,
  rawId: string | undefined,
  value: unknown,
  silent = false,
  response = false,
): ParsedInvalid {
  return { kind: 'invalid', error, id, rawId, silent, response, value };
}

/**
 * Checks a number id: an exactly representable one needs no source text. Returns the source text
 * for one that is not, `null` for an id that is no valid id at all, `undefined` when all is well.
 */
function rawIdOf(id: number, text: string | undefined, index: number): string | undefined | null {
  if (Number.isSafeInteger(id)) return undefined;
  const raw = text === undefined ? undefined : findRawId(text, index);
  if (raw !== undefined) return raw;
  return Number.isFinite(id) ? undefined : null;
}

/**
 * Classifies one parsed JSON value as a request, notification, response or invalid message.
 *
 * @param value - a parsed JSON value
 * @param text - the text it was parsed from, to recover number ids that lose precision
 * @param index - its position in the batch of `text`, or `-1` for a single message
 * @param jsonrpc1 - also accept JSON-RPC 1.0 requests (see {@link ParseOptions.jsonrpc1})
 * @returns the classification; never throws
 * @example
 * ```ts
 * classify({ jsonrpc: '2.0', method: 'update', params: [1] }).kind; // 'notification'
 * ```
 */
export function classify(
  value: unknown,
  text?: string,
  index = -1,
  jsonrpc1 = false,
): ParsedMessage {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    return invalid(INVALID_REQUEST, null, undefined, value);
  }
  const message = value as Record<string, unknown>;

  // The id first: every error answer needs it.
  let id: JsonRpcId = null;
  let rawId: string | undefined;
  let hasId = false;
  let idValid = true;
  const rawIdValue = message.id;
  if (rawIdValue !== undefined) {
    hasId = true;
    if (typeof rawIdValue === 'number') {
      const raw = rawIdOf(rawIdValue, text, index);
      if (raw === null) idValid = false;
      else {
        id = rawIdValue;
        rawId = raw;
      }
    } else if (typeof rawIdValue === 'string' || rawIdValue === null) id = rawIdValue;
    else if (typeof rawIdValue === 'bigint') {
      // Read by a lossless reader: the digits are the raw id.
      id = Number(rawIdValue);
      rawId = String(rawIdValue);
    } else idValid = false;
  } else if ('id' in message) {
    // `"id": undefined` cannot come from JSON; only from a hand-built object.
    hasId = true;
    idValid = false;
  }

  const method = message.method;
  if (method === undefined) {
    if ('result' in message || 'error' in message) {
      return classifyResponse(message, id, rawId, hasId && idValid);
    }
    return invalid(INVALID_REQUEST, id, rawId, value);
  }
  if (jsonrpc1 && !('jsonrpc' in message) && typeof method === 'string' && idValid) {
    return classifyJsonRpc1(message, method, id, rawId);
  }
  if (message.jsonrpc !== '2.0' || typeof method !== 'string' || !idValid) {
    return invalid(INVALID_REQUEST, id, rawId, value);
  }
  const params = message.params;
  if (params !== undefined && (typeof params !== 'object' || params === null)) {
    return invalid(INVALID_PARAMS, id, rawId, value, !hasId);
  }
  if (params === undefined && 'params' in message) {
    return invalid(INVALID_PARAMS, id, rawId, value, !hasId);
  }
  return hasId
    ? { kind: 'request', message: message as unknown as JsonRpcRequest, rawId }
    : { kind: 'notification', message: message as unknown as JsonRpcNotification };
}

/** A JSON-RPC 1.0 request or notification (`id: null` or no id), in the 2.0 shape. */
function classifyJsonRpc1(
  message: Record<string, unknown>,
  method: string,
  id: JsonRpcId,
  rawId: string | undefined,
): ParsedMessage {
  const params = message.params;
  const notification = id === null;
  if (params !== undefined && !Array.isArray(params)) {
    return invalid(INVALID_PARAMS, id, rawId, message, notification);
  }
  if (notification) {
    const out: JsonRpcNotification =
      params === undefined ? { jsonrpc: '2.0', method } : { jsonrpc: '2.0', method, params };
    return { kind: 'notification', message: out };
  }
  const out: JsonRpcRequest =
    params === undefined ? { jsonrpc: '2.0', id, method } : { jsonrpc: '2.0', id, method, params };
  return { kind: 'request', message: out, rawId, jsonrpc1: true };
}

function classifyResponse(
  message: Record<string, unknown>,
  id: JsonRpcId,
  rawId: string | undefined,
  idOk: boolean,
): ParsedMessage {
  const hasResult = 'result' in message;
  const error = message.error;
  const ok =
    message.jsonrpc === '2.0' &&
    idOk &&
    !('params' in message) &&
    (hasResult
      ? !('error' in message)
      : typeof error === 'object' &&
        error !== null &&
        Number.isInteger((error as Record<string, unknown>).code) &&
        typeof (error as Record<string, unknown>).message === 'string');
  return ok
    ? { kind: 'response', message: message as unknown as JsonRpcResponse, rawId }
    : invalid(INVALID_REQUEST, id, rawId, message, false, true);
}

/**
 * Parses untrusted text into classified JSON-RPC messages. Never throws.
 *
 * - Text that is not JSON: one invalid message with -32700 and id `null`.
 * - An empty array: one invalid message with -32600 and id `null`.
 * - A non-empty array: a batch, each member classified on its own.
 * - Anything else: one classified message.
 *
 * @param text - untrusted text
 * @param options - another JSON reader (a codec's), JSON-RPC 1.0
 * @returns the classification
 * @example
 * ```ts
 * const parsed = parse('{"jsonrpc":"2.0","id":1,"method":"sum","params":[1,2]}');
 * if (parsed.kind === 'request') parsed.message.method; // "sum"
 * ```
 */
export function parse(text: string, options?: ParseOptions): ParseResult {
  let value: unknown;
  const read = options?.read;
  try {
    value = read === undefined ? JSON.parse(text) : read(text);
  } catch {
    return NOT_JSON;
  }
  const jsonrpc1 = options?.jsonrpc1 === true;
  if (Array.isArray(value)) {
    const length = value.length;
    if (length === 0) return invalid(INVALID_REQUEST, null, undefined, value);
    const messages = new Array<ParsedMessage>(length);
    for (let i = 0; i < length; i++) messages[i] = classify(value[i], text, i, jsonrpc1);
    return { kind: 'batch', messages };
  }
  return classify(value, text, -1, jsonrpc1);
}
