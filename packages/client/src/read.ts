/**
 * How the client reads what arrives: core's plain `parse` unless a codec, JSON-RPC 1.0 or
 * response checks are asked for. The checks' code comes with the `responseChecks` value, so a
 * client that uses none ships none of it.
 *
 * @module
 */
import {
  type Codec,
  type JsonRpc1,
  type ParseOptions,
  type ParseResult,
  parse,
} from '@jsonrpc-kit/core';
import { decodeResults } from '@jsonrpc-kit/core/engine';
import type { ResponseChecker } from './response-checks.js';

/**
 * Makes the client's reader.
 *
 * @param codec - the client's codec: its reader, and `decode` for results
 * @param jsonrpc1 - core's `jsonrpc1` when the client speaks JSON-RPC 1.0, else `undefined`
 * @param checker - the client's response checks, or `undefined` for the strict default
 * @returns the reader, for the session's `parse`
 */
export function readerOf(
  codec: Codec | undefined,
  jsonrpc1: JsonRpc1 | undefined,
  checker: ResponseChecker | undefined,
): (text: string) => ParseResult {
  if (checker !== undefined) return (text) => checker.parse(text, { codec, jsonrpc1 });
  const read = codec?.read;
  const decode = codec?.decode;
  if (read === undefined && decode === undefined && jsonrpc1 === undefined) return parse;
  const options: ParseOptions = { read, jsonrpc1 };
  return decode === undefined
    ? (text) => parse(text, options)
    : (text) => decodeResults(parse(text, options), decode);
}
