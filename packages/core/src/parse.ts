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
  /** Tells the variants apart. */
  readonly kind: 'request';
  /** The request, as sent. */
  readonly message: JsonRpcRequest;
  /**
   * The id's exact source text when a JavaScript number cannot hold it exactly (an integer
   * beyond 2^53, a long fraction); `undefined` otherwise. Serializers echo it verbatim.
   */
  readonly rawId: string | undefined;
}

/** A valid notification: never answered. */
export interface ParsedNotification {
  /** Tells the variants apart. */
  readonly kind: 'notification';
  /** The notification, as sent. */
  readonly message: JsonRpcNotification;
}

/** A valid response (success or error). */
export interface ParsedResponse {
  /** Tells the variants apart. */
  readonly kind: 'response';
  /** The response, as sent. */
  readonly message: JsonRpcResponse;
  /** As {@link ParsedRequest.rawId}. */
  readonly rawId: string | undefined;
}

/** Something that is not a valid message, with the error to answer and the id to answer with. */
export interface ParsedInvalid {
  /** Tells the variants apart. */
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
  /** Tells the variants apart. */
  readonly kind: 'batch';
  /** Each member of the batch, classified on its own, in order. */
  readonly messages: readonly ParsedMessage[];
}

/** What {@link parse} returns: one message, a batch, or an invalid message. */
export type ParseResult = ParsedMessage | ParsedBatch;

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
 * @returns the classification; never throws
 * @example
 * ```ts
 * classify({ jsonrpc: '2.0', method: 'update', params: [1] }).kind; // 'notification'
 * ```
 */
export function classify(value: unknown, text?: string, index = -1): ParsedMessage {
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
    else idValid = false;
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
 * @returns the classification
 * @example
 * ```ts
 * const parsed = parse('{"jsonrpc":"2.0","id":1,"method":"sum","params":[1,2]}');
 * if (parsed.kind === 'request') parsed.message.method; // "sum"
 * ```
 */
export function parse(text: string): ParseResult {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return NOT_JSON;
  }
  if (Array.isArray(value)) {
    const length = value.length;
    if (length === 0) return invalid(INVALID_REQUEST, null, undefined, value);
    const messages = new Array<ParsedMessage>(length);
    for (let i = 0; i < length; i++) messages[i] = classify(value[i], text, i);
    return { kind: 'batch', messages };
  }
  return classify(value, text, -1);
}
