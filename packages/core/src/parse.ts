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
import type { JsonRpc1, ParsedInvalid, ParsedMessage, ParseResult } from './parsed.js';
import { findRawIds } from './raw-id.js';

export type {
  JsonRpc1,
  ParsedBatch,
  ParsedInvalid,
  ParsedMessage,
  ParsedNotification,
  ParsedRequest,
  ParsedResponse,
  ParseResult,
} from './parsed.js';

/** Options of {@link parse}. */
export interface ParseOptions {
  /**
   * Reads the text instead of `JSON.parse` (a codec's lossless reader, say). It throws on text
   * that is not JSON. An integer id read as a `BigInt` keeps its digits as the raw id.
   * @default JSON.parse
   */
  readonly read?: ((text: string) => unknown) | undefined;
  /**
   * Also accept JSON-RPC 1.0: pass core's `jsonrpc1`. A message without a `jsonrpc` member is
   * then read as 1.0: a request (params by position, or absent) is marked `jsonrpc1: true` and
   * given in the 2.0 shape, `id: null` (or no id) is a notification, and an answer with `result`
   * beside `error` (one of them `null`) is read as a 2.0 response. Its code comes with the value.
   * @default undefined (2.0 only)
   */
  readonly jsonrpc1?: JsonRpc1 | undefined;
  /**
   * The longest batch classified. A longer one is refused as a whole, before any member is looked
   * at: one invalid message with -32003 and id `null`.
   * @default Infinity
   */
  readonly maxBatchSize?: number | undefined;
}

const PARSE_ERROR: JsonRpcErrorObject = Object.freeze({
  code: ErrorCode.ParseError,
  message: 'Parse error',
});
/** -32600, as `parse` answers it (internal: for the JSON-RPC 1.0 reader). */
export const INVALID_REQUEST: JsonRpcErrorObject = Object.freeze({
  code: ErrorCode.InvalidRequest,
  message: 'Invalid Request',
});
/** -32602 for params that are not structured (internal: for the JSON-RPC 1.0 reader). */
export const INVALID_PARAMS: JsonRpcErrorObject = Object.freeze({
  code: ErrorCode.InvalidParams,
  message: 'Invalid params: params must be an array or an object',
});

const BATCH_TOO_LARGE: JsonRpcErrorObject = Object.freeze({
  code: ErrorCode.BatchTooLarge,
  message: 'Batch too large',
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

/**
 * An invalid message (internal: for the JSON-RPC 1.0 reader).
 *
 * @param error - what to answer
 * @param id - the id to answer with
 * @param rawId - its source text
 * @param value - the message
 * @param silent - not answered (a notification)
 * @param response - it looks like a response
 * @returns the classification
 */
export function invalid(
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
 * Where a number id's source text comes from: the text of a single message (scanned when an id
 * needs it: a message makes nothing for it), or for a batch, its id texts found once for all its
 * members.
 */
type RawIdSource = string | (() => readonly (string | undefined)[]);

/** The id texts of a batch's `text`, scanned on first use and kept: one pass per batch. */
function batchIds(text: string): () => readonly (string | undefined)[] {
  let ids: readonly (string | undefined)[] | undefined;
  return () => {
    ids ??= findRawIds(text);
    return ids;
  };
}

/**
 * Checks a number id: an exactly representable one needs no source text. Returns the source text
 * for one that is not, `null` for an id that is no valid id at all, `undefined` when all is well.
 */
function rawIdOf(
  id: number,
  ids: RawIdSource | undefined,
  index: number,
): string | undefined | null {
  if (Number.isSafeInteger(id)) return undefined;
  const texts = ids === undefined ? undefined : typeof ids === 'string' ? findRawIds(ids) : ids();
  const raw = texts?.[Math.max(index, 0)];
  if (raw !== undefined) return raw;
  return Number.isFinite(id) ? undefined : null;
}

/**
 * Classifies one parsed JSON value as a request, notification, response or invalid message.
 *
 * Cost: constant, except for a number id that a JavaScript number cannot hold exactly, whose
 * source text is then found by one scan of `text`. Classifying the members of a batch one by one
 * this way scans once per such member; {@link parse} scans once per message.
 *
 * @param value - a parsed JSON value
 * @param text - the text it was parsed from, to recover number ids that lose precision
 * @param index - its position in the batch of `text`, or `-1` for a single message
 * @param jsonrpc1 - core's `jsonrpc1`, to also accept JSON-RPC 1.0 (see {@link ParseOptions.jsonrpc1})
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
  jsonrpc1?: JsonRpc1,
): ParsedMessage {
  return classifyWith(value, text, index, jsonrpc1);
}

function classifyWith(
  value: unknown,
  ids: RawIdSource | undefined,
  index: number,
  jsonrpc1: JsonRpc1 | undefined,
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
      const raw = rawIdOf(rawIdValue, ids, index);
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

  if (jsonrpc1 !== undefined && !('jsonrpc' in message)) {
    const read = jsonrpc1.classify(message, id, rawId, hasId && idValid, idValid);
    if (read !== undefined) return read;
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

/**
 * Classifies a message with `result` or `error` as a 2.0 response (internal: for the JSON-RPC 1.0
 * reader too).
 *
 * @param message - the message
 * @param id - its id
 * @param rawId - the id's source text
 * @param idOk - whether the id member is there and valid
 * @returns the response, or an invalid message
 */
export function classifyResponse(
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
  if (ok) return { kind: 'response', message: message as unknown as JsonRpcResponse, rawId };
  const refused = invalid(INVALID_REQUEST, id, rawId, message, false, true);
  const rule = strictRuleBroken(message, hasResult, error);
  return rule === undefined ? refused : { ...refused, rule };
}

/**
 * The response check (an option of the client's `responseChecks`) that a response refused by
 * {@link classifyResponse} breaks first, in the order the checks run; `undefined` when it breaks
 * JSON-RPC whatever the options (an id of the wrong type). Runs only for refused responses.
 */
function strictRuleBroken(
  message: Record<string, unknown>,
  hasResult: boolean,
  error: unknown,
): string | undefined {
  if (message.jsonrpc !== '2.0') return 'requireJsonRpcVersion20';
  if ('params' in message) return 'rejectRequestFields';
  if (!('id' in message)) return 'requireIdMember';
  if (hasResult) return 'error' in message ? 'requireExclusiveResultOrError' : undefined;
  if (typeof error !== 'object' || error === null || Array.isArray(error)) {
    return 'requireErrorObjectWhenPresent';
  }
  const e = error as Record<string, unknown>;
  if (!Number.isInteger(e.code)) return 'requireIntegerErrorCode';
  if (typeof e.message !== 'string') return 'requireStringErrorMessage';
  return undefined;
}

/**
 * Parses untrusted text into classified JSON-RPC messages. Never throws.
 *
 * - Text that is not JSON: one invalid message with -32700 and id `null`.
 * - An empty array: one invalid message with -32600 and id `null`.
 * - An array longer than `options.maxBatchSize`: one invalid message with -32003 and id `null`.
 * - A non-empty array: a batch, each member classified on its own.
 * - Anything else: one classified message.
 *
 * Cost: linear in the length of `text`, whatever its shape: `JSON.parse`, then at most one more
 * pass to recover the exact text of number ids a JavaScript number cannot hold.
 *
 * @param text - untrusted text
 * @param options - the batch length limit, another JSON reader (a codec's), JSON-RPC 1.0
 * @returns the classification
 * @example
 * ```ts
 * const parsed = parse('{"jsonrpc":"2.0","id":1,"method":"sum","params":[1,2]}');
 * if (parsed.kind === 'request') parsed.message.method; // "sum"
 * parse('[1,2,3]', { maxBatchSize: 2 }).kind; // 'invalid' (-32003)
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
  const jsonrpc1 = options?.jsonrpc1;
  if (Array.isArray(value)) {
    const length = value.length;
    if (length === 0) return invalid(INVALID_REQUEST, null, undefined, value);
    const max = options?.maxBatchSize;
    if (max !== undefined && length > max) return invalid(BATCH_TOO_LARGE, null, undefined, value);
    const messages = new Array<ParsedMessage>(length);
    const ids = batchIds(text);
    for (let i = 0; i < length; i++) messages[i] = classifyWith(value[i], ids, i, jsonrpc1);
    return { kind: 'batch', messages };
  }
  return classifyWith(value, text, -1, jsonrpc1);
}
