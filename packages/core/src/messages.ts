/**
 * The JSON-RPC 2.0 message model: requests, notifications, responses and batches, with type
 * guards for each.
 *
 * @module
 */

/**
 * A request id. `null` is a valid id (a request with a null id is still a request); a message
 * without an `id` member is a notification.
 */
export type JsonRpcId = string | number | null;

/** Structured parameters: by position (an array) or by name (an object). */
export type JsonRpcParams = readonly unknown[] | { readonly [name: string]: unknown };

/** A call that expects an answer. */
export interface JsonRpcRequest {
  /** Always `"2.0"`. */
  readonly jsonrpc: '2.0';
  /** Chosen by the caller and echoed exactly in the answer; `null` is a valid id, not a notification. */
  readonly id: JsonRpcId;
  /** The method to call. Names starting with `rpc.` are reserved for extensions. */
  readonly method: string;
  /** The arguments: an array (by position) or an object (by name); may be omitted. */
  readonly params?: JsonRpcParams;
}

/** A call that expects no answer: it has no `id` member at all. */
export interface JsonRpcNotification {
  /** Always `"2.0"`. */
  readonly jsonrpc: '2.0';
  /** The method to call. */
  readonly method: string;
  /** The arguments: an array (by position) or an object (by name); may be omitted. */
  readonly params?: JsonRpcParams;
}

/** The error member of an error response. */
export interface JsonRpcErrorObject {
  /** An integer; see `ErrorCode` for the codes the spec and the kit define. */
  readonly code: number;
  /** A short description of the error. */
  readonly message: string;
  /** More about the error, defined by the server (schema issues for -32602, say). */
  readonly data?: unknown;
}

/** A successful answer. */
export interface JsonRpcSuccessResponse<T = unknown> {
  /** Always `"2.0"`. */
  readonly jsonrpc: '2.0';
  /** The request's id, exactly. */
  readonly id: JsonRpcId;
  /** The method's result. */
  readonly result: T;
}

/** A failed answer. `id` is `null` when the server could not read the request's id. */
export interface JsonRpcErrorResponse {
  /** Always `"2.0"`. */
  readonly jsonrpc: '2.0';
  /** The request's id, or `null` when it could not be read. */
  readonly id: JsonRpcId;
  /** What went wrong. */
  readonly error: JsonRpcErrorObject;
}

/** Either kind of answer. */
export type JsonRpcResponse<T = unknown> = JsonRpcSuccessResponse<T> | JsonRpcErrorResponse;

/** Any single JSON-RPC message. */
export type JsonRpcMessage = JsonRpcRequest | JsonRpcNotification | JsonRpcResponse;

/** A batch: an array of messages sent as one text. */
export type JsonRpcBatch = readonly JsonRpcMessage[];

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/**
 * Whether `value` is a valid id: a string, a finite number, or `null`.
 *
 * @param value - anything
 * @returns `true` for a string, a finite number or `null`
 * @example
 * ```ts
 * isJsonRpcId(null); // true
 * isJsonRpcId(Number.NaN); // false
 * ```
 */
export function isJsonRpcId(value: unknown): value is JsonRpcId {
  return (
    value === null ||
    typeof value === 'string' ||
    (typeof value === 'number' && Number.isFinite(value))
  );
}

function hasValidParams(message: Record<string, unknown>): boolean {
  const params = message.params;
  return params === undefined
    ? !('params' in message)
    : typeof params === 'object' && params !== null;
}

/**
 * Whether `value` is a well-formed request (it has an `id` member, which may be `null`).
 *
 * @param value - a parsed JSON value
 * @returns `true` if `value` is a request
 * @example
 * ```ts
 * isRequest({ jsonrpc: '2.0', id: null, method: 'ping' }); // true
 * isRequest({ jsonrpc: '2.0', method: 'ping' }); // false: a notification
 * ```
 */
export function isRequest(value: unknown): value is JsonRpcRequest {
  return (
    isObject(value) &&
    value.jsonrpc === '2.0' &&
    typeof value.method === 'string' &&
    'id' in value &&
    isJsonRpcId(value.id) &&
    hasValidParams(value)
  );
}

/**
 * Whether `value` is a well-formed notification (no `id` member at all).
 *
 * @param value - a parsed JSON value
 * @returns `true` if `value` is a notification
 * @example
 * ```ts
 * isNotification({ jsonrpc: '2.0', method: 'log', params: ['hi'] }); // true
 * ```
 */
export function isNotification(value: unknown): value is JsonRpcNotification {
  return (
    isObject(value) &&
    value.jsonrpc === '2.0' &&
    typeof value.method === 'string' &&
    !('id' in value) &&
    hasValidParams(value)
  );
}

/**
 * Whether `value` is a well-formed error object: an integer `code` and a string `message`.
 *
 * @param value - a parsed JSON value
 * @returns `true` if `value` is an error object
 * @example
 * ```ts
 * isErrorObject({ code: -32601, message: 'Method not found' }); // true
 * isErrorObject({ code: 1.5, message: 'x' }); // false
 * ```
 */
export function isErrorObject(value: unknown): value is JsonRpcErrorObject {
  return isObject(value) && Number.isInteger(value.code) && typeof value.message === 'string';
}

/**
 * Whether `value` is a well-formed success response: an id, a `result` member, no `error`.
 *
 * @param value - a parsed JSON value
 * @returns `true` if `value` is a success response
 * @example
 * ```ts
 * isSuccessResponse({ jsonrpc: '2.0', id: 1, result: null }); // true
 * ```
 */
export function isSuccessResponse(value: unknown): value is JsonRpcSuccessResponse {
  return (
    isObject(value) &&
    value.jsonrpc === '2.0' &&
    'id' in value &&
    isJsonRpcId(value.id) &&
    'result' in value &&
    !('error' in value) &&
    !('method' in value)
  );
}

/**
 * Whether `value` is a well-formed error response: an id and a valid `error`, no `result`.
 *
 * @param value - a parsed JSON value
 * @returns `true` if `value` is an error response
 * @example
 * ```ts
 * isErrorResponse({ jsonrpc: '2.0', id: null, error: { code: -32700, message: 'Parse error' } }); // true
 * ```
 */
export function isErrorResponse(value: unknown): value is JsonRpcErrorResponse {
  return (
    isObject(value) &&
    value.jsonrpc === '2.0' &&
    'id' in value &&
    isJsonRpcId(value.id) &&
    isErrorObject(value.error) &&
    !('result' in value) &&
    !('method' in value)
  );
}

/**
 * Whether `value` is a well-formed response of either kind.
 *
 * @param value - a parsed JSON value
 * @returns `true` if `value` is a success or error response
 * @example
 * ```ts
 * isResponse({ jsonrpc: '2.0', id: 1, result: 19 }); // true
 * ```
 */
export function isResponse(value: unknown): value is JsonRpcResponse {
  return isSuccessResponse(value) || isErrorResponse(value);
}

/**
 * Whether `value` is a non-empty array (a batch). Members are not checked: classify each one.
 *
 * @param value - a parsed JSON value
 * @returns `true` if `value` is a non-empty array
 * @example
 * ```ts
 * isBatch([]); // false: an empty batch is invalid
 * isBatch([{ jsonrpc: '2.0', method: 'a' }]); // true
 * ```
 */
export function isBatch(value: unknown): value is JsonRpcBatch {
  return Array.isArray(value) && value.length > 0;
}
