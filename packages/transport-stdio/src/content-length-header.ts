/**
 * The header block of Content-Length framing: its bytes (`Content-Length: `, the blank line), the
 * header name characters, the case-insensitive search for `content-length:` that resynchronises a
 * decoder after a bad header, the parse of a block into its length, and the text of each framing
 * error.
 *
 * @module
 */
import { FrameErrorReason, type FrameErrorReasonValue } from './errors.js';

/** The blank line that ends a header block. */
export const HEADER_END: Buffer = Buffer.from('\r\n\r\n', 'latin1');
/** `Content-Length: ` as bytes, the fast path's exact spelling. */
export const PREFIX: Buffer = Buffer.from('Content-Length: ', 'latin1');
/** Its length in bytes. */
export const PREFIX_LENGTH: number = PREFIX.length;
/** `content-length:` in lower case, for the case-insensitive resynchronisation search. */
export const TOKEN: Buffer = Buffer.from('content-length:', 'latin1');

/** Header name characters (RFC 9110 token). */
function isTokenByte(b: number): boolean {
  return (
    (b >= 0x61 && b <= 0x7a) ||
    (b >= 0x41 && b <= 0x5a) ||
    (b >= 0x30 && b <= 0x39) ||
    b === 0x2d ||
    b === 0x5f ||
    b === 0x2e ||
    b === 0x21 ||
    (b >= 0x23 && b <= 0x27) ||
    b === 0x2a ||
    b === 0x2b ||
    b === 0x5e ||
    b === 0x60 ||
    b === 0x7c ||
    b === 0x7e
  );
}

/** Finds `content-length:` in any case in `b[from, to)`, or -1. */
export function findToken(b: Buffer, from: number, to: number): number {
  const last = to - TOKEN.length;
  outer: for (let i = from; i <= last; i++) {
    for (let j = 0; j < TOKEN.length; j++) {
      if ((b[i + j]! | 0x20) !== TOKEN[j]!) continue outer;
    }
    return i;
  }
  return -1;
}

/** Whether the bytes from `start` cannot be the beginning of a header line. */
export function cannotBeHeader(b: Buffer, start: number, end: number): boolean {
  for (let i = start; i < end; i++) {
    const c = b[i]!;
    if (c === 0x3a) return i === start;
    if (!isTokenByte(c)) return true;
  }
  return false;
}

/** Parses a header block `b[start, end)` (without the blank line): the length, or a reason. */
export function parseHeaderBlock(
  b: Buffer,
  start: number,
  end: number,
): number | FrameErrorReasonValue {
  const text = b.toString('latin1', start, end);
  let length = -1;
  for (const line of text.split('\r\n')) {
    const colon = line.indexOf(':');
    if (colon <= 0) return FrameErrorReason.InvalidHeader;
    for (let i = 0; i < colon; i++) {
      if (!isTokenByte(line.charCodeAt(i))) return FrameErrorReason.InvalidHeader;
    }
    if (colon !== 14 || line.slice(0, colon).toLowerCase() !== 'content-length') continue;
    const value = line.slice(colon + 1).trim();
    if (!/^\d{1,15}$/.test(value)) return FrameErrorReason.InvalidContentLength;
    const n = Number(value);
    if (length !== -1 && length !== n) return FrameErrorReason.InvalidContentLength;
    length = n;
  }
  return length === -1 ? FrameErrorReason.MissingContentLength : length;
}

/** The message of each framing error. */
export const MESSAGES: Record<FrameErrorReasonValue, string> = {
  'missing-content-length': 'Header block without a Content-Length header',
  'invalid-content-length': 'Content-Length is not a non-negative integer',
  'invalid-header': 'Expected a Content-Length header',
  'header-too-large': 'Header block too large',
  'message-too-large': 'Message too large',
  truncated: 'Stream ended inside a message',
};
