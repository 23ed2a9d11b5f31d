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
 * @example
 * ```ts
 * stringifyId('a'); // '"a"'
 * stringifyId(1, '9007199254740993'); // '9007199254740993'
 * ```
 */
export function stringifyId(id: JsonRpcId, rawId?: string): string {
  if (rawId !== undefined) return rawId;
  // Not `String(id)`: it keeps each number's text in V8's number-to-string cache, so the text of
  // every new id outlives its message and makes the young-generation GC copy it (a third of the
  // time of a busy in-memory connection went there).
  return id === null ? 'null' : JSON.stringify(id);
}

/**
 * A success response. `undefined` (and anything else JSON cannot represent at the top) becomes
 * `null`.
 *
 * @param id - the request's id
 * @param result - the result
 * @param rawId - the id's exact source text, when the parser kept one
 * @param write - writes the result (a codec's writer)
 * @returns the response text
 * @throws TypeError when `result` holds a BigInt or a cycle (the caller answers -32603)
 * @example
 * ```ts
 * serializeSuccess(1, 19); // '{"jsonrpc":"2.0","id":1,"result":19}'
 * ```
 */
export function serializeSuccess(
  id: JsonRpcId,
  result: unknown,
  rawId?: string,
  write: (value: unknown) => string | undefined = JSON.stringify,
): string {
  const json = write(result);
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
 * @example
 * ```ts
 * serializeError(null, { code: -32700, message: 'Parse error' });
 * // '{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"Parse error"}}'
 * ```
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

/** The last method name written and its JSON text: most messages name the method before them. */
let lastMethod = '';
let lastMethodJson = '""';

/** The JSON text of a method name, kept for the next message that names the same method. */
function methodJson(method: string): string {
  if (method !== lastMethod) {
    lastMethodJson = JSON.stringify(method);
    lastMethod = method;
  }
  return lastMethodJson;
}

/**
 * A request.
 *
 * @param id - the id
 * @param method - the method name
 * @param params - the params; omitted when `undefined`
 * @param write - writes the params (a codec's writer)
 * @returns the request text
 * @throws TypeError when `params` holds a BigInt or a cycle
 * @example
 * ```ts
 * serializeRequest(1, 'subtract', [42, 23]);
 * // '{"jsonrpc":"2.0","id":1,"method":"subtract","params":[42,23]}'
 * ```
 */
export function serializeRequest(
  id: JsonRpcId,
  method: string,
  params?: JsonRpcParams,
  write: (value: unknown) => string | undefined = JSON.stringify,
): string {
  const head = '{"jsonrpc":"2.0","id":' + stringifyId(id) + ',"method":' + methodJson(method);
  return params === undefined ? head + '}' : head + ',"params":' + write(params) + '}';
}

/**
 * A notification (no `id` member).
 *
 * @param method - the method name
 * @param params - the params; omitted when `undefined`
 * @param write - writes the params (a codec's writer)
 * @returns the notification text
 * @throws TypeError when `params` holds a BigInt or a cycle
 * @example
 * ```ts
 * serializeNotification('update', [1, 2]); // '{"jsonrpc":"2.0","method":"update","params":[1,2]}'
 * ```
 */
export function serializeNotification(
  method: string,
  params?: JsonRpcParams,
  write: (value: unknown) => string | undefined = JSON.stringify,
): string {
  const head = '{"jsonrpc":"2.0","method":' + methodJson(method);
  return params === undefined ? head + '}' : head + ',"params":' + write(params) + '}';
}

/**
 * A batch of already serialized messages. An empty list gives `undefined`: an empty array must
 * never be sent as an answer.
 *
 * @param items - serialized messages
 * @returns the batch text, or `undefined` for no items
 * @example
 * ```ts
 * serializeBatch([serializeSuccess(1, 7), serializeSuccess(2, 19)]); // '[{…},{…}]'
 * ```
 */
export function serializeBatch(items: readonly string[]): string | undefined {
  return items.length === 0 ? undefined : '[' + items.join(',') + ']';
}

/** The -32603 answer for a result that could not be serialized. */
export const UNSERIALIZABLE_RESULT: JsonRpcErrorObject = Object.freeze({
  code: ErrorCode.InternalError,
  message: 'Internal error: result is not serializable as JSON',
});
