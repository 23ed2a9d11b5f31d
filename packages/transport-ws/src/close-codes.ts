/**
 * WebSocket close codes the transports use (RFC 6455, section 7.4.1).
 *
 * @module
 */

/**
 * The close codes this package sends or reacts to.
 *
 * @example
 * ```ts
 * socket.close(CloseCode.GoingAway, 'Server shutting down');
 * ```
 */
export const CloseCode = {
  /** A normal close: the purpose of the connection is fulfilled. */
  Normal: 1000,
  /** The endpoint is going away: server shutdown, page navigation. */
  GoingAway: 1001,
  /** A protocol error (sent by `ws` itself). */
  ProtocolError: 1002,
  /** No status code was present in the close frame. */
  NoStatus: 1005,
  /** The connection dropped without a close frame (never sent on the wire). */
  Abnormal: 1006,
  /** A text frame that is not valid UTF-8 (sent by `ws` itself). */
  InvalidPayload: 1007,
  /** A message larger than `maxMessageBytes` (sent by `ws` itself). */
  MessageTooBig: 1009,
} as const;

/** One of the values of {@link CloseCode}. */
export type CloseCodeValue = (typeof CloseCode)[keyof typeof CloseCode];

const MAX_REASON_BYTES = 123;

/**
 * Turns a close reason of any type into the text of a close frame: at most 123 UTF-8 bytes, cut
 * on a character boundary.
 *
 * @param reason - an `Error`, a string, or anything else
 * @returns the reason text (empty when `reason` is `undefined`)
 * @example
 * ```ts
 * closeReasonText(new Error('bye')); // 'bye'
 * ```
 */
export function closeReasonText(reason: unknown): string {
  if (reason === undefined || reason === null) return '';
  let text = reason instanceof Error ? reason.message : String(reason);
  if (text.length * 3 <= MAX_REASON_BYTES) return text;
  // Every character takes at least one byte: no more than 123 of them can fit.
  if (text.length > MAX_REASON_BYTES) text = text.slice(0, MAX_REASON_BYTES);
  const encoder = new TextEncoder();
  while (encoder.encode(text).length > MAX_REASON_BYTES) text = text.slice(0, -1);
  // Never leave half of a surrogate pair at the end.
  const last = text.charCodeAt(text.length - 1);
  if (last >= 0xd800 && last <= 0xdbff) text = text.slice(0, -1);
  return text;
}

/**
 * Whether a close code means the other side ended the connection on purpose (no error).
 *
 * @param code - the close code received
 * @returns `true` for 1000, 1001 and 1005
 * @example
 * ```ts
 * isCleanClose(1000); // true
 * ```
 */
export function isCleanClose(code: number): boolean {
  return code === CloseCode.Normal || code === CloseCode.GoingAway || code === CloseCode.NoStatus;
}
