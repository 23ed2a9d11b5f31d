/**
 * JSON-RPC 1.0 on the wire: requests without `jsonrpc`, params by position only, `id: null` for a
 * notification, and answers that carry both `result` and `error`, one of them `null`.
 *
 * @module
 */
import type { JsonRpcErrorObject, JsonRpcId } from './messages.js';
import { serializeError, stringifyId } from './serialize.js';

/**
 * A JSON-RPC 1.0 request.
 *
 * @param id - the id (not `null`: that is a notification)
 * @param method - the method name
 * @param params - the params, by position
 * @param write - writes the params (a codec's writer)
 * @returns the request text
 * @throws TypeError when `params` is not an array
 * @example
 * ```ts
 * serializeRequest1(1, 'echo', ['hi']); // '{"id":1,"method":"echo","params":["hi"]}'
 * ```
 */
export function serializeRequest1(
  id: JsonRpcId,
  method: string,
  params: readonly unknown[] | undefined,
  write: (value: unknown) => string | undefined = JSON.stringify,
): string {
  if (params !== undefined && !Array.isArray(params)) {
    throw new TypeError(`JSON-RPC 1.0 takes params by position only (an array), for "${method}"`);
  }
  return (
    '{"id":' +
    stringifyId(id) +
    ',"method":' +
    JSON.stringify(method) +
    ',"params":' +
    (params === undefined ? '[]' : write(params)) +
    '}'
  );
}

/**
 * A JSON-RPC 1.0 notification: a request with `id: null`.
 *
 * @param method - the method name
 * @param params - the params, by position
 * @param write - writes the params (a codec's writer)
 * @returns the notification text
 * @throws TypeError when `params` is not an array
 * @example
 * ```ts
 * serializeNotification1('log', ['hi']); // '{"id":null,"method":"log","params":["hi"]}'
 * ```
 */
export function serializeNotification1(
  method: string,
  params: readonly unknown[] | undefined,
  write: (value: unknown) => string | undefined = JSON.stringify,
): string {
  return serializeRequest1(null, method, params, write);
}

/**
 * A JSON-RPC 1.0 success answer: `result` and `"error": null`.
 *
 * @param id - the request's id
 * @param result - the result (`undefined` becomes `null`)
 * @param rawId - the id's exact source text, when the parser kept one
 * @param write - writes the result (a codec's writer)
 * @returns the answer text
 * @throws TypeError when the result cannot be written
 * @example
 * ```ts
 * serializeSuccess1(1, 'hi'); // '{"id":1,"result":"hi","error":null}'
 * ```
 */
export function serializeSuccess1(
  id: JsonRpcId,
  result: unknown,
  rawId?: string,
  write: (value: unknown) => string | undefined = JSON.stringify,
): string {
  const json = write(result);
  return (
    '{"id":' +
    stringifyId(id, rawId) +
    ',"result":' +
    (json === undefined ? 'null' : json) +
    ',"error":null}'
  );
}

/**
 * A JSON-RPC 1.0 error answer: `"result": null` and the error object. Never throws.
 *
 * @param id - the request's id
 * @param error - the error object
 * @param rawId - the id's exact source text, when the parser kept one
 * @returns the answer text
 * @example
 * ```ts
 * serializeError1(1, { code: -32601, message: 'Method not found' });
 * // '{"id":1,"result":null,"error":{"code":-32601,"message":"Method not found"}}'
 * ```
 */
export function serializeError1(id: JsonRpcId, error: JsonRpcErrorObject, rawId?: string): string {
  // The 2.0 text ends with ',"error":{…}}': keep its error object, drop its envelope.
  const text = serializeError(id, error, rawId);
  const errorJson = text.slice(text.indexOf(',"error":') + 9, -1);
  return '{"id":' + stringifyId(id, rawId) + ',"result":null,"error":' + errorJson + '}';
}
