/**
 * JSON-RPC 1.0 on the wire: requests without `jsonrpc`, params by position only, `id: null` for a
 * notification, and answers that carry both `result` and `error`, one of them `null`.
 *
 * @module
 */
import type {
  JsonRpcErrorObject,
  JsonRpcId,
  JsonRpcNotification,
  JsonRpcRequest,
} from './messages.js';
import { classifyResponse, INVALID_PARAMS, INVALID_REQUEST, invalid } from './parse.js';
import type { JsonRpc1, ParsedMessage } from './parsed.js';
import { serializeError, serializeRequest, serializeSuccess } from './serialize.js';

export type { JsonRpc1 } from './parsed.js';

/** The head every 2.0 text starts with: a 1.0 text is the 2.0 one without it. */
const V2_HEAD = '{"jsonrpc":"2.0",'.length;

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
  return '{' + serializeRequest(id, method, params ?? [], write).slice(V2_HEAD);
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
  // The 2.0 text without its head and closing brace: `"id":…,"result":…`.
  return '{' + serializeSuccess(id, result, rawId, write).slice(V2_HEAD, -1) + ',"error":null}';
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
  // The 2.0 text is `{"jsonrpc":"2.0","id":…,"error":{…}}`: `"result":null` goes before the error.
  const text = serializeError(id, error, rawId);
  const at = text.indexOf(',"error":');
  return '{' + text.slice(V2_HEAD, at) + ',"result":null' + text.slice(at);
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

/**
 * A JSON-RPC 1.0 answer: `result` beside `error`, one of them `null` (a `null` member counts as
 * absent), read in the 2.0 shape and then checked as a 2.0 answer.
 */
function classifyResponse1(
  message: Record<string, unknown>,
  id: JsonRpcId,
  rawId: string | undefined,
  idOk: boolean,
): ParsedMessage {
  let hasResult = 'result' in message;
  let hasError = 'error' in message;
  if (hasResult && hasError) {
    if (message.error === null) hasError = false;
    else if (message.result === null) hasResult = false;
  }
  if (hasResult === hasError || 'params' in message) {
    return invalid(INVALID_REQUEST, id, rawId, message, false, true);
  }
  return classifyResponse(
    hasResult
      ? { jsonrpc: '2.0', id, result: message.result }
      : { jsonrpc: '2.0', id, error: message.error },
    id,
    rawId,
    idOk,
  );
}

/**
 * Reads a message that has no `jsonrpc` member as JSON-RPC 1.0.
 *
 * @returns the classification, or `undefined` when it is not 1.0 either (read as 2.0 then)
 */
function classify1(
  message: Record<string, unknown>,
  id: JsonRpcId,
  rawId: string | undefined,
  idOk: boolean,
  idValid: boolean,
): ParsedMessage | undefined {
  const method = message.method;
  if (method === undefined) {
    return 'result' in message || 'error' in message
      ? classifyResponse1(message, id, rawId, idOk)
      : undefined;
  }
  return typeof method === 'string' && idValid
    ? classifyJsonRpc1(message, method, id, rawId)
    : undefined;
}

/**
 * JSON-RPC 1.0: requests without `jsonrpc`, params by position only, `id: null` for a
 * notification, answers with both `result` and `error` (one `null`).
 *
 * @example
 * ```ts
 * parse('{"id":1,"method":"echo","params":["hi"]}', { jsonrpc1 }).kind; // 'request'
 * const client = createClient(transport, { jsonrpc1 });
 * ```
 */
export const jsonrpc1: JsonRpc1 = /* @__PURE__ */ Object.freeze({
  classify: classify1,
  serializeRequest: serializeRequest1,
  serializeNotification: serializeNotification1,
  serializeSuccess: serializeSuccess1,
  serializeError: serializeError1,
});
