/**
 * A binary frame read as text: its bytes, decoded when they are UTF-8, and the -32700 answer a
 * server gives one that is not.
 *
 * @module
 */
import { ErrorCode, serializeError } from '@jsonrpc-kit/core';
import type { SocketData } from './socket-types.js';

/**
 * Node's UTF-8 check, taken from the built-in's own object: importing `node:buffer` makes its ES
 * module, which reads every export, and its `File` then loads a module of its own at start-up.
 */
const { isUtf8 } = process.getBuiltinModule('node:buffer');

/** The answer to a binary frame that is not UTF-8: a -32700 with a null id. */
export const INVALID_UTF8_ANSWER: string = serializeError(null, {
  code: ErrorCode.ParseError,
  message: 'Parse error',
  data: 'binary frame is not valid UTF-8',
});

/**
 * The text of a binary frame.
 *
 * @param data - the frame's payload, as `ws` hands it over
 * @returns the text, or `undefined` when the bytes are not UTF-8
 */
export function binaryFrameText(data: SocketData): string | undefined {
  const bytes = toBuffer(data);
  return isUtf8(bytes) ? bytes.toString() : undefined;
}

function toBuffer(data: SocketData): Buffer {
  if (Buffer.isBuffer(data)) return data;
  if (Array.isArray(data)) return Buffer.concat(data);
  return Buffer.from(data);
}
