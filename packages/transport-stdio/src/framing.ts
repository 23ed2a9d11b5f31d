/**
 * Choosing a framing: Content-Length, newline, or detected from the first bytes received.
 *
 * @module
 */
import {
  type ContentLengthDecoderOptions,
  contentLengthPieces,
  createContentLengthDecoder,
  encodeContentLengthBatch,
} from './content-length.js';
import { asBuffer, type FrameDecoder, isWhitespace } from './decoder.js';
import { createNewlineDecoder, encodeNewlineBatch, newlinePieces } from './newline.js';

/**
 * How messages are delimited on a byte stream:
 *
 * - `'content-length'`: `Content-Length: N\r\n\r\n` headers, as in LSP.
 * - `'newline'`: one JSON text per line, as in MCP's stdio transport.
 * - `'auto'`: decided from the first non-whitespace bytes received (`{` or `[` means newline,
 *   anything else a header block); answers use the same framing. For the side that listens first.
 */
export type Framing = 'content-length' | 'newline' | 'auto';

/** A framing once decided. */
export type ResolvedFraming = 'content-length' | 'newline';

/** Options of {@link createFrameDecoder}. */
export interface FrameDecoderOptions extends ContentLengthDecoderOptions {
  /**
   * Called once when the framing is known: at once for a fixed framing, on the first
   * non-whitespace byte for `'auto'`.
   *
   * @param framing - the framing in use
   */
  readonly onFraming?: ((framing: ResolvedFraming) => void) | undefined;
}

/**
 * Creates a decoder for a framing. With `'auto'`, whitespace before the first message is skipped;
 * the first other byte picks newline framing when it is `{` or `[`, Content-Length otherwise.
 *
 * @param framing - the framing, or `'auto'`
 * @param options - limits, callbacks, and `onFraming`
 * @returns a decoder to `push` bytes into
 * @throws never; framing problems go to `onError`
 * @example
 * ```ts
 * const decoder = createFrameDecoder('auto', {
 *   onMessage: (text) => console.error(text),
 *   onFraming: (framing) => console.error('peer speaks', framing),
 * });
 * process.stdin.on('data', (chunk) => decoder.push(chunk));
 * ```
 */
export function createFrameDecoder(framing: Framing, options: FrameDecoderOptions): FrameDecoder {
  if (framing === 'content-length') {
    options.onFraming?.(framing);
    return createContentLengthDecoder(options);
  }
  if (framing === 'newline') {
    options.onFraming?.(framing);
    return createNewlineDecoder(options);
  }
  let inner: FrameDecoder | undefined;
  return {
    push(chunk) {
      if (inner !== undefined) {
        inner.push(chunk);
        return;
      }
      const b = asBuffer(chunk);
      let p = 0;
      while (p < b.length && isWhitespace(b[p]!)) p++;
      if (p === b.length) return;
      const first = b[p];
      const chosen: ResolvedFraming =
        first === 0x7b || first === 0x5b ? 'newline' : 'content-length';
      inner =
        chosen === 'newline' ? createNewlineDecoder(options) : createContentLengthDecoder(options);
      options.onFraming?.(chosen);
      inner.push(p === 0 ? b : b.subarray(p));
    },
    end() {
      inner?.end();
    },
    get bufferedBytes() {
      return inner?.bufferedBytes ?? 0;
    },
  };
}

/**
 * Frames several messages for one write.
 *
 * @param framing - the framing in use
 * @param messages - the messages, in order
 * @returns the framed text
 */
export function encodeBatch(framing: ResolvedFraming, messages: readonly string[]): string {
  return framing === 'newline' ? encodeNewlineBatch(messages) : encodeContentLengthBatch(messages);
}

/**
 * Frames one message as two pieces to write one after the other (see {@link newlinePieces} and
 * {@link contentLengthPieces}): for a big message, whose joined copy would cost as much as it.
 *
 * @param framing - the framing in use
 * @param message - the message
 * @returns the pieces, in order
 */
export function encodePieces(framing: ResolvedFraming, message: string): readonly [string, string] {
  return framing === 'newline' ? newlinePieces(message) : contentLengthPieces(message);
}
