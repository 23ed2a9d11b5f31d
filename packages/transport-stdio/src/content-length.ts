/**
 * Content-Length framing, as in the Language Server Protocol: `Content-Length: N\r\n\r\n` and then
 * N bytes of UTF-8. Other headers (Content-Type, say) are tolerated; header names are
 * case-insensitive. The header block's grammar is in `content-length-header.ts`.
 *
 * @module
 */
import { createEnvelopeScanner, type EnvelopeScanner } from '@jsonrpc-kit/core/engine';
import {
  cannotBeHeader,
  findToken,
  HEADER_END,
  MESSAGES,
  PREFIX,
  PREFIX_LENGTH,
  parseHeaderBlock,
  TOKEN,
} from './content-length-header.js';
import {
  asBuffer,
  DEFAULT_MAX_HEADER_BYTES,
  DEFAULT_STDIO_MAX_MESSAGE_BYTES,
  type DecoderOptions,
  type FrameDecoder,
  isWhitespace,
} from './decoder.js';
import { FrameError, FrameErrorReason, type FrameErrorReasonValue } from './errors.js';

/** Options of {@link createContentLengthDecoder}. */
export interface ContentLengthDecoderOptions extends DecoderOptions {
  /**
   * The largest header block buffered while looking for its end, in bytes.
   *
   * @default DEFAULT_MAX_HEADER_BYTES (8 KiB)
   */
  readonly maxHeaderBytes?: number | undefined;
}

/**
 * Node's ASCII check, taken from the built-in's own object: importing `node:buffer` makes its ES
 * module, which reads every export, and its `File` then loads a module of its own at start-up.
 */
const nativeIsAscii = process.getBuiltinModule('node:buffer').isAscii as
  | ((bytes: Buffer) => boolean)
  | undefined;

/**
 * Whether bytes are all ASCII (native; `false` where the runtime has no `isAscii`, which only
 * turns off the one-decode path below).
 */
const isAscii: (bytes: Buffer) => boolean =
  typeof nativeIsAscii === 'function' ? nativeIsAscii : () => false;

const MODE_HEADER = 0;
const MODE_BODY = 1;
const MODE_SKIP = 2;

/**
 * Creates an incremental Content-Length decoder. It survives headers and bodies split anywhere
 * (byte by byte), delivers every message of a chunk in one `push`, decodes each body from its
 * bytes as a whole (so multi-byte characters split across chunks are intact), skips a message over
 * `maxMessageBytes` without buffering it, and after a bad header reports the problem once and
 * resynchronises on the next `Content-Length:` header.
 *
 * @param options - limits and the message and error callbacks
 * @returns a decoder to `push` bytes into
 * @throws never; framing problems go to `onError` as `FrameError` (code `TRANSPORT_ERROR`,
 *   `reason` one of `missing-content-length`, `invalid-content-length`, `invalid-header`,
 *   `header-too-large`, `message-too-large`, `truncated`)
 * @example
 * ```ts
 * const decoder = createContentLengthDecoder({ onMessage: (text) => console.log(JSON.parse(text)) });
 * decoder.push(encodeContentLength('{"jsonrpc":"2.0","method":"ping"}'));
 * ```
 */
export function createContentLengthDecoder(options: ContentLengthDecoderOptions): FrameDecoder {
  const maxMessageBytes = options.maxMessageBytes ?? DEFAULT_STDIO_MAX_MESSAGE_BYTES;
  const maxHeaderBytes = options.maxHeaderBytes ?? DEFAULT_MAX_HEADER_BYTES;
  const onMessage = options.onMessage;
  const onError = options.onError;

  let mode = MODE_HEADER;
  /** Header bytes kept from earlier chunks (a copy), or undefined. */
  let pending: Buffer | undefined;
  /** The body being filled, in MODE_BODY. */
  let body: Buffer = Buffer.alloc(0);
  let bodyFilled = 0;
  /** Bytes still to skip, in MODE_SKIP. */
  let skipLeft = 0;
  /** The skipped message's scanner and its error text, in MODE_SKIP. */
  let skipScanner: EnvelopeScanner | undefined;
  let skipDetail = '';
  /** After an error, until the next good header: errors are not reported again. */
  let resyncing = false;

  const report = (reason: FrameErrorReasonValue, detail?: string): void => {
    if (reason !== FrameErrorReason.MessageTooLarge && reason !== FrameErrorReason.Truncated) {
      if (resyncing) return;
      resyncing = true;
    }
    onError?.(new FrameError(reason, detail === undefined ? MESSAGES[reason] : detail));
  };

  /** The skipped message is over (or the stream ended in it): report it with its envelope. */
  const endSkip = (): void => {
    const scanner = skipScanner!;
    skipScanner = undefined;
    mode = MODE_HEADER;
    onError?.(new FrameError(FrameErrorReason.MessageTooLarge, skipDetail, scanner.result()));
  };

  /** A header announced `length` bytes; returns where the caller continues in `b`. */
  const beginBody = (b: Buffer, start: number, length: number): number => {
    resyncing = false;
    const end = b.length;
    if (length > maxMessageBytes) {
      // Skipped, not buffered; scanned on the way for its id, and reported once it is over.
      skipDetail = `Message of ${length} bytes is over the limit of ${maxMessageBytes}`;
      skipScanner = createEnvelopeScanner();
      const n = Math.min(length, end - start);
      skipScanner.push(b.subarray(start, start + n));
      skipLeft = length - n;
      if (skipLeft > 0) mode = MODE_SKIP;
      else endSkip();
      return start + n;
    }
    if (end - start >= length) {
      onMessage(b.toString('utf8', start, start + length));
      return start + length;
    }
    body = Buffer.allocUnsafe(length);
    bodyFilled = b.copy(body, 0, start, end);
    mode = MODE_BODY;
    return end;
  };

  /**
   * Reads a header from `b` at `start` (general path). Returns where to continue in `b`, or -1
   * when more bytes are needed (`keepFrom` then says what to keep).
   */
  let keepFrom = 0;
  const readHeader = (b: Buffer, start: number): number => {
    const end = b.length;
    let p = start;
    if (resyncing) {
      // After a bad header, only a Content-Length header starts the next message, wherever the
      // chunks were cut.
      p = findToken(b, p, end);
      if (p === -1) {
        keepFrom = Math.max(start, end - TOKEN.length + 1);
        return -1;
      }
    }
    while (p < end && isWhitespace(b[p]!)) p++;
    if (p === end) {
      keepFrom = end;
      return -1;
    }
    const stop = b.indexOf(HEADER_END, p);
    if (stop === -1 || stop - p > maxHeaderBytes) {
      const limit = stop === -1 ? end : stop;
      const bad = cannotBeHeader(b, p, limit);
      // Without the blank line yet, the last bytes may be the start of it: not header bytes.
      const slack = stop === -1 ? HEADER_END.length - 1 : 0;
      if (!bad && limit - p <= maxHeaderBytes + slack) {
        keepFrom = p;
        return -1;
      }
      report(bad ? FrameErrorReason.InvalidHeader : FrameErrorReason.HeaderTooLarge);
      const next = findToken(b, p + 1, end);
      if (next !== -1) return next;
      // Keep a tail that may hold the start of the next header.
      keepFrom = Math.max(p + 1, end - TOKEN.length);
      return -1;
    }
    const length = parseHeaderBlock(b, p, stop);
    if (typeof length === 'number') return beginBody(b, stop + 4, length);
    report(length);
    // Garbage glued to a header hides it ("junkContent-Length: 2"): look inside. A block with a
    // bad Content-Length value is skipped whole.
    const next = length === FrameErrorReason.InvalidContentLength ? -1 : findToken(b, p + 1, stop);
    return next === -1 ? stop + 4 : next;
  };

  /** Fast path: exactly `Content-Length: N\r\n\r\n` at `p`; returns the body start or -1. */
  let fastLength = 0;
  const readFast = (b: Buffer, p: number): number => {
    const end = b.length;
    if (end - p < PREFIX_LENGTH + 5) return -1;
    for (let i = 0; i < PREFIX_LENGTH; i++) if (b[p + i] !== PREFIX[i]) return -1;
    let i = p + PREFIX_LENGTH;
    let n = 0;
    const digitsStart = i;
    for (; i < end; i++) {
      const c = b[i]!;
      if (c < 0x30 || c > 0x39) break;
      n = n * 10 + (c - 0x30);
    }
    if (i === digitsStart || i - digitsStart > 15 || end - i < 4) return -1;
    if (b[i] !== 0x0d || b[i + 1] !== 0x0a || b[i + 2] !== 0x0d || b[i + 3] !== 0x0a) return -1;
    fastLength = n;
    return i + 4;
  };

  /**
   * Delivers the complete frame whose body starts at `bodyStart` (its length in `fastLength`,
   * within the limit) and every complete frame with an exact header right after it. When their
   * bodies are ASCII they are decoded in one `toString` and cut by offset (bytes and characters
   * are then the same): about 70 ns a message less than one decode each. Otherwise each body is
   * decoded by itself, as a split message is. Returns where the run ended in `b`.
   */
  const deliverRun = (b: Buffer, bodyStart: number): number => {
    const end = b.length;
    /** Start and end of each body, in pairs. */
    const bounds = [bodyStart, bodyStart + fastLength];
    let at = bodyStart + fastLength;
    for (;;) {
      const next = readFast(b, at);
      if (next === -1 || fastLength > maxMessageBytes || end - next < fastLength) break;
      at = next + fastLength;
      bounds.push(next, at);
    }
    resyncing = false;
    if (bounds.length > 2 && isAscii(b.subarray(bodyStart, at))) {
      const text = b.toString('latin1', bodyStart, at);
      for (let i = 0; i < bounds.length; i += 2) {
        onMessage(text.slice(bounds[i]! - bodyStart, bounds[i + 1]! - bodyStart));
      }
    } else {
      for (let i = 0; i < bounds.length; i += 2) {
        onMessage(b.toString('utf8', bounds[i], bounds[i + 1]));
      }
    }
    return at;
  };

  const pushBuffer = (b: Buffer): void => {
    let pos = 0;
    const end = b.length;
    while (pos < end) {
      if (mode === MODE_BODY) {
        const need = body.length - bodyFilled;
        if (end - pos < need) {
          bodyFilled += b.copy(body, bodyFilled, pos, end);
          return;
        }
        b.copy(body, bodyFilled, pos, pos + need);
        pos += need;
        const full = body;
        body = Buffer.alloc(0);
        bodyFilled = 0;
        mode = MODE_HEADER;
        onMessage(full.toString('utf8'));
        continue;
      }
      if (mode === MODE_SKIP) {
        const n = Math.min(skipLeft, end - pos);
        skipScanner!.push(b.subarray(pos, pos + n));
        skipLeft -= n;
        pos += n;
        if (skipLeft === 0) endSkip();
        continue;
      }
      if (pending !== undefined) {
        // Join the kept header bytes with enough of this chunk to finish the header.
        const kept = pending;
        const take = Math.min(end - pos, maxHeaderBytes + 4);
        const joined = Buffer.concat([kept, b.subarray(pos, pos + take)]);
        pending = undefined;
        const next = readHeader(joined, 0);
        if (next === -1) {
          if (keepFrom < joined.length) pending = Buffer.from(joined.subarray(keepFrom));
          pos += take;
          continue;
        }
        if (next >= kept.length) {
          // Continue in this chunk. The body, if any, was started from `joined`: re-base it.
          pos += next - kept.length;
          continue;
        }
        // Resynchronised inside the kept bytes: keep the rest of them and read again.
        pending = Buffer.from(kept.subarray(next));
        continue;
      }
      const fast = readFast(b, pos);
      if (fast !== -1) {
        pos =
          fastLength <= maxMessageBytes && end - fast >= fastLength
            ? deliverRun(b, fast)
            : beginBody(b, fast, fastLength);
        continue;
      }
      const next = readHeader(b, pos);
      if (next === -1) {
        if (keepFrom < end) pending = Buffer.from(b.subarray(keepFrom, end));
        return;
      }
      pos = next;
    }
  };

  return {
    push(chunk) {
      pushBuffer(asBuffer(chunk));
    },
    end() {
      if (mode === MODE_SKIP) endSkip();
      const cut =
        mode === MODE_BODY ||
        (!resyncing && pending !== undefined && pending.some((byte) => !isWhitespace(byte)));
      mode = MODE_HEADER;
      pending = undefined;
      body = Buffer.alloc(0);
      bodyFilled = 0;
      skipLeft = 0;
      resyncing = false;
      if (cut) report(FrameErrorReason.Truncated);
    },
    get bufferedBytes() {
      return (pending?.length ?? 0) + bodyFilled;
    },
  };
}

/**
 * Frames one message with a Content-Length header: `Content-Length: N\r\n\r\n` then the UTF-8
 * bytes of `text`, as one buffer.
 *
 * @param text - the message (JSON text)
 * @returns header and body in one buffer
 * @example
 * ```ts
 * socket.write(encodeContentLength('{"jsonrpc":"2.0","method":"ping"}'));
 * ```
 */
export function encodeContentLength(text: string): Buffer {
  const length = Buffer.byteLength(text, 'utf8');
  const header = 'Content-Length: ' + length + '\r\n\r\n';
  const out = Buffer.allocUnsafe(header.length + length);
  out.write(header, 0, 'latin1');
  out.write(text, header.length, 'utf8');
  return out;
}

/**
 * Frames one message with its Content-Length header, in two pieces to write one after the other:
 * the header and the message, not joined into a copy of the message.
 *
 * @param text - the message
 * @returns the pieces, in order
 */
export function contentLengthPieces(text: string): readonly [string, string] {
  return ['Content-Length: ' + Buffer.byteLength(text, 'utf8') + '\r\n\r\n', text];
}

/**
 * Frames several messages with Content-Length headers into one string, for one write.
 *
 * @param messages - the messages, in order
 * @returns the framed text
 */
export function encodeContentLengthBatch(messages: readonly string[]): string {
  let out = '';
  for (let i = 0; i < messages.length; i++) {
    const m = messages[i]!;
    out += 'Content-Length: ' + Buffer.byteLength(m, 'utf8') + '\r\n\r\n' + m;
  }
  return out;
}
