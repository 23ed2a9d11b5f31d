/**
 * Errors of the byte-stream transports: a broken frame, and a child process that exited.
 *
 * @module
 */
import { TransportError } from '@jsonrpc-kit/core';
import type { MessageEnvelope, TransportErrorOptions } from '@jsonrpc-kit/core/engine';

const FRAME_BRAND = Symbol.for('@jsonrpc-kit/transport-stdio.FrameError');
const EXIT_BRAND = Symbol.for('@jsonrpc-kit/transport-stdio.ProcessExitError');

/**
 * Why a frame was refused, as a stable string:
 *
 * - `missing-content-length`: a header block without a `Content-Length` header.
 * - `invalid-content-length`: a `Content-Length` that is not a non-negative integer.
 * - `invalid-header`: bytes where a header block should start that are not a header (garbage).
 * - `header-too-large`: a header block longer than the header limit.
 * - `message-too-large`: a message over `maxMessageBytes`; its bytes were skipped, not buffered,
 *   and scanned for its top-level id and method (reported once the message has been skipped).
 * - `truncated`: the stream ended in the middle of a message.
 */
export const FrameErrorReason = {
  /** A header block without a `Content-Length` header. */
  MissingContentLength: 'missing-content-length',
  /** A `Content-Length` that is not a non-negative integer. */
  InvalidContentLength: 'invalid-content-length',
  /** Bytes where a header block should start that are not a header. */
  InvalidHeader: 'invalid-header',
  /** A header block longer than the header limit. */
  HeaderTooLarge: 'header-too-large',
  /** A message over `maxMessageBytes`; its bytes were skipped, not buffered. */
  MessageTooLarge: 'message-too-large',
  /** The stream ended in the middle of a message. */
  Truncated: 'truncated',
} as const;

/** One of the strings of {@link FrameErrorReason}. */
export type FrameErrorReasonValue = (typeof FrameErrorReason)[keyof typeof FrameErrorReason];

/**
 * A frame on a byte stream could not be read. Non-fatal: decoders report it through `onError` and
 * resynchronise on the next frame. `code` is `'TRANSPORT_ERROR'`; `reason` says what was wrong.
 *
 * @example
 * ```ts
 * const decoder = createNewlineDecoder({
 *   maxMessageBytes: 1024,
 *   onMessage: (text) => console.error(text),
 *   onError: (error) => console.error(error.reason), // 'message-too-large'
 * });
 * ```
 */
export class FrameError extends TransportError {
  /** What was wrong with the frame. */
  readonly reason: FrameErrorReasonValue;
  /**
   * For `message-too-large`: what a scan of the skipped message's top level found (its kind, id
   * and method), so that its owner can answer a request with its own id.
   */
  readonly envelope: MessageEnvelope | undefined;

  /**
   * @param reason - what was wrong, from {@link FrameErrorReason}
   * @param message - a description
   * @param envelope - for `message-too-large`, what the skipped message's top level said
   */
  constructor(reason: FrameErrorReasonValue, message: string, envelope?: MessageEnvelope) {
    super(message);
    this.name = 'FrameError';
    this.reason = reason;
    this.envelope = envelope;
    Object.defineProperty(this, FRAME_BRAND, { value: true });
  }

  /** Recognizes instances from any copy of this package. */
  static override [Symbol.hasInstance](instance: unknown): boolean {
    return (
      typeof instance === 'object' &&
      instance !== null &&
      (instance as Record<symbol, unknown>)[FRAME_BRAND] === true
    );
  }
}

/** Options of {@link ProcessExitError}. */
export interface ProcessExitErrorOptions extends TransportErrorOptions {
  /** The exit code, or `null` when a signal ended the process. */
  readonly exitCode: number | null;
  /** The signal that ended the process, or `null`. */
  readonly signal: NodeJS.Signals | null;
}

/**
 * The child process behind a transport exited (or could not start) while the transport was open.
 * `code` is `'TRANSPORT_ERROR'`; `exitCode` and `signal` say how it ended.
 *
 * @example
 * ```ts
 * await transport.start({
 *   onMessage() {},
 *   onClose(error) {
 *     if (error instanceof ProcessExitError) console.error(error.exitCode, error.signal);
 *   },
 * });
 * ```
 */
export class ProcessExitError extends TransportError {
  /** The exit code, or `null` when a signal ended the process or it never started. */
  readonly exitCode: number | null;
  /** The signal that ended the process, or `null`. */
  readonly signal: NodeJS.Signals | null;

  /**
   * @param message - a description
   * @param options - exit code, signal, and a cause
   */
  constructor(message: string, options: ProcessExitErrorOptions) {
    super(message, options);
    this.name = 'ProcessExitError';
    this.exitCode = options.exitCode;
    this.signal = options.signal;
    Object.defineProperty(this, EXIT_BRAND, { value: true });
  }

  /** Recognizes instances from any copy of this package. */
  static override [Symbol.hasInstance](instance: unknown): boolean {
    return (
      typeof instance === 'object' &&
      instance !== null &&
      (instance as Record<symbol, unknown>)[EXIT_BRAND] === true
    );
  }
}
