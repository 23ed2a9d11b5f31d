/**
 * The engine under every transport of this package: reads framed messages from a readable
 * stream, writes framed messages to a writable stream with coalescing and backpressure, and fires
 * `onClose` once. Internal; the transports decide what ending and failing mean.
 *
 * @module
 */
import type { Readable, Writable } from 'node:stream';
import {
  ConnectionClosedError,
  type Transport,
  TransportError,
  type TransportHandler,
} from '@jsonrpc-kit/core';
import { createTransportState, type Deferred, deferred } from '@jsonrpc-kit/core/engine';
import { closeReasonError } from './close-reason.js';
import { DEFAULT_STDIO_MAX_MESSAGE_BYTES, type FrameDecoder } from './decoder.js';
import type { FrameError } from './errors.js';
import {
  createFrameDecoder,
  encodeBatch,
  encodePieces,
  type Framing,
  type ResolvedFraming,
} from './framing.js';

/** Options of {@link createChannel}. */
export interface ChannelOptions {
  readonly readable: Readable;
  readonly writable: Writable;
  readonly framing: Framing;
  readonly maxMessageBytes?: number | undefined;
  readonly maxHeaderBytes?: number | undefined;
  /** Bytes waiting to be written past which the readable is paused until the writable drains. */
  readonly highWaterMark: number;
  /** Bytes waiting to be written past which the channel fails through `onStreamError`. */
  readonly maxQueuedBytes: number;
  /** The readable ended (after the decoder delivered what it held). */
  readonly onEnd: () => void;
  /** The readable or the writable failed. */
  readonly onStreamError: (error: Error) => void;
  /** The readable closed without ending, or the writable closed. */
  readonly onStreamClose?: (() => void) | undefined;
}

/** The engine a transport is built on. */
export interface Channel {
  start(handler: TransportHandler): Promise<void>;
  send(message: string): Promise<void>;
  /**
   * Stops reading and sending and fires `onClose(error)` once. With `graceful`, messages already
   * queued are written first and their sends resolve; otherwise they reject.
   */
  stop(error: Error | undefined, graceful: boolean): void;
  /** Reports a non-fatal error to the handler. */
  reportError(error: Error): void;
  /**
   * Tells the owner that input ended while sends still go out, if it listens (`onEnd`).
   *
   * @returns `true` when the owner took it (it closes later); `false` to close now
   */
  endInput(): boolean;
  readonly stopped: boolean;
  /** The largest message delivered (final once started). */
  readonly maxMessageBytes: number;
}

/**
 * Above this length (UTF-16 units) a message written alone goes out apart from its framing: a
 * joined string would copy it whole (for a megabyte, about as long as serializing it).
 */
const JOIN_LIMIT = 64 * 1024;

/** The sends of one batch wait on its write. */
type Batch = Deferred;

const newBatch = deferred;

/**
 * Builds a channel over two streams (they may be the same duplex stream). Error listeners stay on
 * the streams for their whole life; `'data'` is listened to from `start()` until `stop()`.
 *
 * @param options - the streams, the framing, limits, and what to do when the streams end or fail
 * @returns the channel
 * @example
 * ```ts
 * const channel = createChannel({ readable, writable, framing: 'newline', onEnd, onStreamError });
 * ```
 */
export function createChannel(options: ChannelOptions): Channel {
  const { readable, writable } = options;
  const state = createTransportState();
  let stopped = false;
  let encoding: ResolvedFraming | undefined;

  /** Messages waiting for the next flush, and the promise their sends share. */
  let queue: string[] = [];
  let batch: Batch | undefined;
  /** The batch written while the writable was full, resolved on 'drain'. */
  let waiting: Batch | undefined;
  let scheduled = false;
  /** Length of the strings in `queue` (UTF-16 units: a cheap stand-in for their bytes). */
  let queuedChars = 0;
  /** Reading stopped because too much waits to be written. */
  let readPaused = false;
  const { highWaterMark, maxQueuedBytes } = options;

  const pauseReading = (): void => {
    readPaused = true;
    readable.pause();
  };

  const resumeReading = (): void => {
    readPaused = false;
    if (!stopped && state.started) readable.resume();
  };

  const deliver = (message: string): void => {
    if (!stopped) state.deliver(message);
  };

  /** The limit: the transport's own option, else its owner's (offered at start), else the default. */
  let maxMessageBytes = options.maxMessageBytes;

  const onFrameError = (error: FrameError): void => {
    const handler = state.handler;
    if (stopped || handler === undefined) return;
    const envelope = error.envelope;
    if (envelope !== undefined && handler.onTooLarge !== undefined) {
      handler.onTooLarge(envelope, error);
    } else handler.onError?.(error);
  };

  /** Made at `start()`, once the limit is known; nothing is read before. */
  let decoder: FrameDecoder | undefined;
  const makeDecoder = (): FrameDecoder =>
    createFrameDecoder(options.framing, {
      maxMessageBytes,
      // A stream's 'data' chunks are the reader's to keep: no copy of a message split over many.
      retainChunks: true,
      maxHeaderBytes: options.maxHeaderBytes,
      onMessage: deliver,
      onError: onFrameError,
      onFraming: (framing) => {
        encoding = framing;
        if (queue.length > 0) schedule();
      },
    });

  const flush = (): void => {
    scheduled = false;
    if (stopped || waiting !== undefined || queue.length === 0 || encoding === undefined) return;
    writeQueue();
  };

  /**
   * Whether the last write carried several messages. Then the peer keeps many calls going, and
   * the next write waits for the end of the event loop's turn (`setImmediate`), taking in the
   * answers of everything read meanwhile: fewer, bigger writes. After a write of one message
   * alone (one call at a time: an editor, an agent), the next goes out as soon as the code that
   * sent it is done (`process.nextTick`), without waiting for the loop's turn.
   */
  let busy = false;

  const schedule = (): void => {
    if (scheduled || waiting !== undefined || encoding === undefined) return;
    scheduled = true;
    if (busy) setImmediate(flush);
    else process.nextTick(flush);
  };

  /**
   * Writes everything queued as one chunk. Reading resumes once the writable takes more; while it
   * waits for `'drain'`, the send promise waits too.
   */
  const writeQueue = (): void => {
    busy = queue.length > 1;
    let taken: boolean;
    if (queue.length === 1 && queue[0]!.length > JOIN_LIMIT) {
      // Framing and message written apart: joined, the message would be copied once more.
      const [first, second] = encodePieces(encoding!, queue[0]!);
      writable.cork();
      writable.write(first);
      taken = writable.write(second);
      writable.uncork();
    } else taken = writable.write(encodeBatch(encoding!, queue));
    queue = [];
    queuedChars = 0;
    const current = batch!;
    batch = undefined;
    if (taken) {
      current.resolve();
      if (readPaused) resumeReading();
    } else {
      waiting = current;
    }
  };

  const onDrain = (): void => {
    const done = waiting;
    waiting = undefined;
    done?.resolve();
    if (stopped) return;
    if (queue.length > 0) writeQueue();
    else if (readPaused) resumeReading();
  };

  const onData = (chunk: Buffer | string): void => {
    decoder!.push(typeof chunk === 'string' ? Buffer.from(chunk, 'utf8') : chunk);
  };

  const onEnd = (): void => {
    if (stopped) return;
    decoder?.end();
    if (!stopped) options.onEnd();
  };

  const onError = (error: Error): void => {
    if (!stopped) options.onStreamError(error);
  };

  const onStreamClose = (): void => {
    if (!stopped) options.onStreamClose?.();
  };
  /** Set once the owner took the end of input: the readable closing next is expected. */
  let inputEnded = false;
  const onReadableClose = (): void => {
    if (!inputEnded) onStreamClose();
  };

  // Errors are listened to for the whole life of the streams: an 'error' without a listener
  // would crash the process (EPIPE on a closed pipe, say), also after the transport closed.
  readable.on('error', onError);
  readable.on('end', onEnd);
  readable.on('close', onReadableClose);
  if (writable !== (readable as unknown)) {
    writable.on('error', onError);
    writable.on('close', onStreamClose);
  }
  writable.on('drain', onDrain);

  return {
    start(h) {
      if (state.started) return state.start(h);
      const started = state.start(h);
      maxMessageBytes ??= h.maxMessageBytes ?? DEFAULT_STDIO_MAX_MESSAGE_BYTES;
      decoder = makeDecoder();
      if (!stopped) {
        readable.on('data', onData);
        if (!readPaused) readable.resume();
      }
      return started;
    },
    send(message) {
      if (stopped) return Promise.reject(new ConnectionClosedError());
      queue.push(message);
      queuedChars += message.length;
      if (batch === undefined) batch = newBatch();
      const promise = batch.promise;
      const queued = queuedChars + writable.writableLength;
      if (queued > highWaterMark && !readPaused) {
        // The peer reads slower than it asks: stop reading its requests until it catches up.
        pauseReading();
      }
      if (queued > maxQueuedBytes) {
        options.onStreamError(
          new TransportError(
            `peer is not reading: ${queued} bytes wait to be written (maxQueuedBytes ${maxQueuedBytes})`,
          ),
        );
        return promise;
      }
      schedule();
      return promise;
    },
    stop(error, graceful) {
      if (stopped) return;
      if (graceful && encoding !== undefined && queue.length > 0 && writable.writable) {
        // Written even past the high-water mark: these sends were accepted while open.
        const data = encodeBatch(encoding, queue);
        queue = [];
        writable.write(data);
        batch?.resolve();
        batch = undefined;
      }
      stopped = true;
      readable.off('data', onData);
      writable.off('drain', onDrain);
      const closed = new ConnectionClosedError(
        'Connection closed',
        error === undefined ? undefined : { cause: error },
      );
      if (graceful) waiting?.resolve();
      else waiting?.reject(closed);
      waiting = undefined;
      batch?.reject(closed);
      batch = undefined;
      queue = [];
      queuedChars = 0;
      state.close(error);
    },
    reportError(error) {
      if (!stopped && state.started) state.report(error);
    },
    endInput() {
      const onInputEnd = state.handler?.onEnd;
      if (stopped || onInputEnd === undefined) return false;
      inputEnded = true;
      readable.off('data', onData);
      onInputEnd.call(state.handler);
      return true;
    },
    get stopped() {
      return stopped;
    },
    get maxMessageBytes() {
      return maxMessageBytes ?? DEFAULT_STDIO_MAX_MESSAGE_BYTES;
    },
  };
}

/**
 * The `Transport` face of a channel: `close()` stops it gracefully (queued writes go out), then
 * runs `release` to let go of the streams. Idempotent.
 *
 * @param channel - the channel
 * @param release - frees the streams after a close
 * @returns the transport
 */
export function channelTransport(channel: Channel, release: () => void): Transport {
  return {
    start: channel.start,
    send: channel.send,
    get maxMessageBytes() {
      return channel.maxMessageBytes;
    },
    close(reason) {
      if (!channel.stopped) {
        channel.stop(closeReasonError(reason), true);
        release();
      }
      return Promise.resolve();
    },
  };
}
