/**
 * What every frame decoder shares: its options, its interface, and the size defaults.
 *
 * @module
 */
import type { FrameError } from './errors.js';

/**
 * The largest message a decoder accepts, in UTF-8 bytes. Bigger messages are reported as
 * `message-too-large` and their bytes skipped without being buffered. The transports use it when
 * neither their options nor their owner set a limit: the peer on a pipe is the process at the
 * other end (an editor, an MCP host), and language servers exchange documents of several MB.
 *
 * @default 16 MiB (16 * 1024 * 1024)
 */
export const DEFAULT_STDIO_MAX_MESSAGE_BYTES: number = 16 * 1024 * 1024;

/**
 * The largest header block the Content-Length decoder buffers while it looks for the blank line
 * that ends it, in bytes.
 *
 * @default 8 KiB (8192)
 */
export const DEFAULT_MAX_HEADER_BYTES: number = 8192;

/** Options of the frame decoders. */
export interface DecoderOptions {
  /**
   * The largest message accepted, in UTF-8 bytes.
   *
   * @default DEFAULT_STDIO_MAX_MESSAGE_BYTES (16 MiB)
   */
  readonly maxMessageBytes?: number | undefined;
  /**
   * The caller hands each pushed chunk over and never writes to it again (as a Node stream does
   * with its `'data'` chunks): the decoder may keep views of the chunks instead of copies while a
   * message is incomplete, so a message split over many chunks is held once, not twice.
   *
   * @default false (the decoder copies what it keeps; the caller may reuse its chunks)
   */
  readonly retainChunks?: boolean | undefined;
  /**
   * Receives each complete message, decoded from UTF-8 as a whole (never chunk by chunk).
   *
   * @param message - the text of one message
   */
  readonly onMessage: (message: string) => void;
  /**
   * Receives each non-fatal framing problem; the decoder then resynchronises.
   *
   * @param error - what was wrong
   */
  readonly onError?: ((error: FrameError) => void) | undefined;
}

/**
 * An incremental decoder: push bytes as they arrive, in chunks of any size and split anywhere;
 * every complete message in a chunk is delivered before `push` returns.
 */
export interface FrameDecoder {
  /**
   * Consumes bytes. The decoder copies what it must keep, so the caller may reuse `chunk`
   * (unless it was created with `retainChunks`).
   *
   * @param chunk - the next bytes of the stream
   */
  push(chunk: Uint8Array): void;
  /** The stream ended: a message cut short is reported as `truncated`, and the state is reset. */
  end(): void;
  /** Bytes held back waiting for the rest of a message. */
  readonly bufferedBytes: number;
}

/**
 * Views a Uint8Array as a Buffer without copying.
 *
 * @param chunk - the bytes
 * @returns `chunk` itself when it is a Buffer, else a Buffer over the same memory
 */
export function asBuffer(chunk: Uint8Array): Buffer {
  return Buffer.isBuffer(chunk)
    ? chunk
    : Buffer.from(chunk.buffer, chunk.byteOffset, chunk.byteLength);
}

/**
 * Whether a byte is JSON whitespace (space, tab, LF, CR).
 *
 * @param byte - one byte
 * @returns `true` for 0x20, 0x09, 0x0a and 0x0d
 */
export function isWhitespace(byte: number): boolean {
  return byte === 0x20 || byte === 0x0a || byte === 0x0d || byte === 0x09;
}
