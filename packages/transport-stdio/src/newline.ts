/**
 * Newline framing, as in the Model Context Protocol's stdio transport: one JSON text per line.
 * `\r\n` line ends are tolerated and blank lines skipped.
 *
 * @module
 */
import { createEnvelopeScanner, type EnvelopeScanner } from '@jsonrpc-kit/core/engine';
import {
  asBuffer,
  DEFAULT_STDIO_MAX_MESSAGE_BYTES,
  type DecoderOptions,
  type FrameDecoder,
  isWhitespace,
} from './decoder.js';
import { FrameError, FrameErrorReason } from './errors.js';

/** Options of {@link createNewlineDecoder}. */
export interface NewlineDecoderOptions extends DecoderOptions {}

const LF = 0x0a;
const CR = 0x0d;
const NEWLINE_RE = /[\r\n]/g;

/**
 * Creates an incremental newline decoder: each line is one message. It survives lines split
 * anywhere, delivers every line of a chunk in one `push` (decoding the chunk's complete lines
 * together, a line split over chunks from its joined bytes), strips a trailing `\r`, skips blank
 * lines, and skips a line over `maxMessageBytes` up to
 * its newline without buffering it. At `end()`, a last line without a newline is still delivered.
 *
 * @param options - the size limit and the message and error callbacks
 * @returns a decoder to `push` bytes into
 * @throws never; a line over the limit goes to `onError` as a `FrameError` (code
 *   `TRANSPORT_ERROR`, reason `message-too-large`)
 * @example
 * ```ts
 * const decoder = createNewlineDecoder({ onMessage: (text) => console.log(JSON.parse(text)) });
 * decoder.push(Buffer.from('{"jsonrpc":"2.0","method":"ping"}\n'));
 * ```
 */
export function createNewlineDecoder(options: NewlineDecoderOptions): FrameDecoder {
  const maxMessageBytes = options.maxMessageBytes ?? DEFAULT_STDIO_MAX_MESSAGE_BYTES;
  const onMessage = options.onMessage;
  const onError = options.onError;
  const retain = options.retainChunks === true;

  /** Pieces of the current line from earlier chunks (copies, or views with `retainChunks`). */
  let parts: Buffer[] = [];
  let partsLength = 0;
  /** Inside a line over the limit: drop bytes up to the next newline, scanning them for its id. */
  let skipping = false;
  let skipScanner: EnvelopeScanner | undefined;
  let skipped = 0;

  const tooLarge = (size: number, more: boolean, scanner: EnvelopeScanner): void => {
    onError?.(
      new FrameError(
        FrameErrorReason.MessageTooLarge,
        `Line of ${more ? 'more than ' : ''}${size} bytes is over the limit of ${maxMessageBytes}`,
        scanner.result(),
      ),
    );
  };

  /** The skipped line is over (or the stream ended in it): report it with its envelope. */
  const endSkip = (): void => {
    skipping = false;
    const scanner = skipScanner!;
    skipScanner = undefined;
    tooLarge(skipped, false, scanner);
  };

  /** Hands on the text from `start` to `end` as one message: without a trailing `\r`, unless blank. */
  const emitText = (text: string, start: number, end: number): void => {
    if (end > start && text.charCodeAt(end - 1) === CR) end--;
    if (end === start) return;
    if (isWhitespace(text.charCodeAt(start))) {
      let i = start + 1;
      while (i < end && isWhitespace(text.charCodeAt(i))) i++;
      if (i === end) return;
    }
    onMessage(start === 0 && end === text.length ? text : text.slice(start, end));
  };

  /** One line's bytes (without its `\n`): decoded and handed on, or refused when too large. */
  const emitLine = (b: Buffer, start: number, end: number): void => {
    const size = end > start && b[end - 1] === CR ? end - 1 - start : end - start;
    if (size <= maxMessageBytes) {
      const text = b.toString('utf8', start, end);
      emitText(text, 0, text.length);
      return;
    }
    const scanner = createEnvelopeScanner();
    scanner.push(b.subarray(start, start + size));
    tooLarge(size, false, scanner);
  };

  /**
   * Every complete line of a chunk at once, when no line waits from earlier chunks and the lines
   * fit the limit together: one decoded text cut at its `\n`s (a `\n` byte is never part of a
   * multi-byte character, so each line reads as it would alone). Decoding each line by itself
   * cost ~90 ns a line, five times the cut.
   */
  const emitLines = (b: Buffer, end: number): void => {
    const text = b.toString('utf8', 0, end);
    let start = 0;
    for (let nl = text.indexOf('\n'); nl !== -1; nl = text.indexOf('\n', start)) {
      emitText(text, start, nl);
      start = nl + 1;
    }
    emitText(text, start, text.length);
  };

  return {
    push(chunk) {
      const b = asBuffer(chunk);
      const end = b.length;
      let pos = 0;
      if (!skipping && partsLength === 0) {
        const last = b.lastIndexOf(LF);
        if (last !== -1 && last <= maxMessageBytes) {
          emitLines(b, last);
          pos = last + 1;
        }
      }
      while (pos < end) {
        const nl = b.indexOf(LF, pos);
        if (nl === -1) {
          if (skipping) {
            skipScanner!.push(b.subarray(pos, end));
            skipped += end - pos;
            return;
          }
          const n = end - pos;
          // One byte of slack for a `\r` that the line end will strip.
          if (partsLength + n > maxMessageBytes + 1) {
            skipScanner = createEnvelopeScanner();
            for (const part of parts) skipScanner.push(part);
            skipScanner.push(b.subarray(pos, end));
            skipped = partsLength + n;
            parts = [];
            partsLength = 0;
            skipping = true;
            return;
          }
          const piece = b.subarray(pos, end);
          parts.push(retain ? piece : Buffer.from(piece));
          partsLength += n;
          return;
        }
        if (skipping) {
          skipScanner!.push(b.subarray(pos, nl));
          skipped += nl - pos;
          endSkip();
        } else if (partsLength === 0) {
          emitLine(b, pos, nl);
        } else {
          parts.push(b.subarray(pos, nl));
          const line = Buffer.concat(parts, partsLength + nl - pos);
          parts = [];
          partsLength = 0;
          emitLine(line, 0, line.length);
        }
        pos = nl + 1;
      }
    },
    end() {
      if (skipping) {
        endSkip();
        return;
      }
      if (partsLength === 0) return;
      const line = Buffer.concat(parts, partsLength);
      parts = [];
      partsLength = 0;
      emitLine(line, 0, line.length);
    },
    get bufferedBytes() {
      return partsLength;
    },
  };
}

/**
 * Frames one message as a line: its UTF-8 bytes and `\n`. Raw line breaks inside `text` (only
 * possible as whitespace between JSON tokens, e.g. pretty-printed JSON) become spaces so that the
 * message stays on one line.
 *
 * @param text - the message (JSON text)
 * @returns the line as one buffer
 * @example
 * ```ts
 * child.stdin.write(encodeNewline('{"jsonrpc":"2.0","method":"ping"}'));
 * ```
 */
export function encodeNewline(text: string): Buffer {
  return Buffer.from(toLine(text) + '\n', 'utf8');
}

/** `text` with raw line breaks replaced by spaces (JSON strings cannot hold them raw). */
function toLine(text: string): string {
  return text.indexOf('\n') === -1 && text.indexOf('\r') === -1
    ? text
    : text.replace(NEWLINE_RE, ' ');
}

/**
 * Frames one message as a line, in two pieces to write one after the other: the message (its raw
 * line breaks replaced) and the newline, not joined into a copy of the message.
 *
 * @param text - the message
 * @returns the pieces, in order
 */
export function newlinePieces(text: string): readonly [string, string] {
  return [toLine(text), '\n'];
}

/**
 * Frames several messages as lines into one string, for one write.
 *
 * @param messages - the messages, in order
 * @returns the framed text
 */
export function encodeNewlineBatch(messages: readonly string[]): string {
  if (messages.length === 1) return toLine(messages[0]!) + '\n';
  let out = '';
  for (let i = 0; i < messages.length; i++) out += toLine(messages[i]!) + '\n';
  return out;
}
