/**
 * Refusing a message for its size: one answer rule for `handle()` and connections, whether the
 * server or the transport found the message too large.
 *
 * @module
 */
import { type JsonRpcErrorObject, RequestTooLargeError, serializeError } from '@jsonrpc-kit/core';
import type { MessageEnvelope } from '@jsonrpc-kit/core/engine';
import type { ServerErrorInfo } from './options.js';

/**
 * The -32004 error object of a limit.
 *
 * @param limit - the limit in bytes
 * @returns the error object, with the limit in `data`
 */
export function tooLargeError(limit: number): JsonRpcErrorObject {
  return new RequestTooLargeError(undefined, { maxRequestBytes: limit }).toErrorObject();
}

/**
 * Reports a message refused for its size to `report`, and says what to answer: -32004 with the
 * request's own id (recovered by a scan of its top level), nothing for a notification or a
 * response, -32004 with id `null` for anything else (a batch, text that is not an object).
 *
 * @param envelope - what a scan of the message found
 * @param limit - the limit it was over, in bytes
 * @param error - what to report: the transport's error, or a `RequestTooLargeError`
 * @param report - the server's error hook
 * @returns the answer text, or `undefined` when nothing is answered
 */
export function refuseTooLarge(
  envelope: MessageEnvelope,
  limit: number,
  error: unknown,
  report: (error: unknown, info: ServerErrorInfo) => void,
): string | undefined {
  const kind = envelope.kind;
  const withId = kind === 'request' || kind === 'response';
  report(error, {
    kind: 'message-too-large',
    level: 'warn',
    ...(envelope.method === undefined ? {} : { method: envelope.method }),
    ...(withId ? { id: envelope.id } : {}),
    notification: kind === 'notification',
  });
  if (kind === 'notification' || kind === 'response') return undefined;
  return serializeError(withId ? envelope.id : null, tooLargeError(limit), envelope.rawId);
}
