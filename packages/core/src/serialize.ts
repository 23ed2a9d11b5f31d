/**
 * Serializers for every message kind. Each builds the envelope around one `JSON.stringify` of
 * the payload: nothing is stringified twice.
 *
 * @module
 */
import { ErrorCode } from './errors.js';
import type { JsonRpcErrorObject, JsonRpcId, JsonRpcParams } from './messages.js';

/**
 * The JSON text of an id.
 *
 * @param id - the id
 * @param rawId - its exact source text, when the parser kept one
 * @returns JSON text
 */
export function stringifyId(id: JsonRpcId, rawId?: string): string {
  if (rawId !== undefined) return rawId;
  return typeof id === 'string' ? JSON.stringify(id) : id === null ? 'null' : String(id);
}

/**
 * A success response. `undefined` (and anything else JSON cannot represent at the top) becomes
 * `null`.
 *
 * @param id - the request's id
 * @param result - the result
 * @param rawId - the id's exact source text, when the parser kept one
 * @returns the response text
 * @throws TypeError when `result` holds a BigInt or a cycle (the caller answers -32603)
 */
export function serializeSuccess(id: JsonRpcId, result: unknown, rawId?: string): string {
  const json = JSON.stringify(result);
  return (
    '{"jsonrpc":"2.0","id":' +
    stringifyId(id, rawId) +
    ',"result":' +
    (json === undefined ? 'null' : json) +
    '}'
  );
}

/**
 * An error response. Never throws: `data` that JSON cannot represent is dropped.
 *
 * @param id - the request's id, or `null`
 * @param error - the error object
 * @param rawId - the id's exact source text, when the parser kept one
 * @returns the response text
 */
export function serializeError(id: JsonRpcId, error: JsonRpcErrorObject, rawId?: string): string {
  let json: string;
  try {
    json = JSON.stringify(
      error.data === undefined
        ? { code: error.code, message: error.message }
        : { code: error.code, message: error.message, data: error.data },
    );
  } catch {
    json = JSON.stringify({ code: error.code, message: error.message });
  }
  return '{"jsonrpc":"2.0","id":' + stringifyId(id, rawId) + ',"error":' + json + '}';
}

/**
 * A request.
 *
 * @param id - the id
 * @param method - the method name
 * @param params - the params; omitted when `undefined`
 * @returns the request text
 * @throws TypeError when `params` holds a BigInt or a cycle
 */
export function serializeRequest(id: JsonRpcId, method: string, params?: JsonRpcParams): string {
  const head = '{"jsonrpc":"2.0","id":' + stringifyId(id) + ',"method":' + JSON.stringify(method);
  return params === undefined ? head + '}' : head + ',"params":' + JSON.stringify(params) + '}';
}

/**
 * A notification (no `id` member).
 *
 * @param method - the method name
 * @param params - the params; omitted when `undefined`
 * @returns the notification text
 * @throws TypeError when `params` holds a BigInt or a cycle
 */
export function serializeNotification(method: string, params?: JsonRpcParams): string {
  const head = '{"jsonrpc":"2.0","method":' + JSON.stringify(method);
  return params === undefined ? head + '}' : head + ',"params":' + JSON.stringify(params) + '}';
}

/**
 * A batch of already serialized messages. An empty list gives `undefined`: an empty array must
 * never be sent as an answer.
 *
 * @param items - serialized messages
 * @returns the batch text, or `undefined` for no items
 */
export function serializeBatch(items: readonly string[]): string | undefined {
  return items.length === 0 ? undefined : '[' + items.join(',') + ']';
}

/** The -32603 answer for a result that could not be serialized. */
export const UNSERIALIZABLE_RESULT: JsonRpcErrorObject = Object.freeze({
  code: ErrorCode.InternalError,
  message: 'Internal error: result is not serializable as JSON',
});
