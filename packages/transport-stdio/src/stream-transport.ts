/**
 * A transport over any pair of byte streams: TCP or Unix sockets, pipes, PassThrough pairs.
 *
 * @module
 */
import type { Readable, Writable } from 'node:stream';
import { type Transport, TransportError } from '@jsonrpc-kit/core';
import { channelTransport, createChannel } from './channel.js';
import type { Framing } from './framing.js';

/**
 * The framing of {@link createStreamTransport} and {@link spawnTransport} when none is given.
 *
 * @default 'content-length'
 */
export const DEFAULT_STREAM_FRAMING: Framing = 'content-length';

/** Options shared by every transport of this package. */
export interface FramedTransportOptions {
  /**
   * How messages are delimited on the stream.
   *
   * @default DEFAULT_STREAM_FRAMING ('content-length'); 'auto' for createStdioTransport
   */
  readonly framing?: Framing | undefined;
  /**
   * The largest inbound message, in UTF-8 bytes. Bigger ones are skipped without being buffered,
   * scanned on the way for their top-level id and method, and handed to the owner's
   * `onTooLarge` (a server answers a request -32004 with its own id), else reported through
   * `onError`. The owner applies this limit too, so one endpoint has one limit.
   *
   * @default the owner's limit when it set one (a server's `maxRequestBytes`), else
   *   DEFAULT_MAX_MESSAGE_BYTES (16 MiB)
   */
  readonly maxMessageBytes?: number | undefined;
  /**
   * The largest Content-Length header block, in bytes.
   *
   * @default DEFAULT_MAX_HEADER_BYTES (8 KiB)
   */
  readonly maxHeaderBytes?: number | undefined;
}

/** Options of {@link createStreamTransport}. */
export interface StreamTransportOptions extends FramedTransportOptions {}

/**
 * Creates a transport over a readable and a writable byte stream (the same object for a socket).
 * Messages sent in one event-loop turn go out as one write; `send()` resolves once the stream
 * accepted the data, waiting for `'drain'` when it is full. The peer ending its side closes the
 * transport (`onClose()` without an error); a stream error closes it with a `TransportError`.
 * `close()` writes what is queued, ends the writable, and stops reading.
 *
 * @param readable - where messages come from
 * @param writable - where messages go
 * @param options - framing and limits
 * @returns the transport
 * @throws never; `send()` rejects with `ConnectionClosedError` (code `CONNECTION_CLOSED`) once
 *   closed, framing problems go to `onError` as `FrameError` (code `TRANSPORT_ERROR`)
 * @example
 * ```ts
 * import { connect } from 'node:net';
 * const socket = connect(4000, '127.0.0.1');
 * const transport = createStreamTransport(socket, socket, { framing: 'content-length' });
 * ```
 */
export function createStreamTransport(
  readable: Readable,
  writable: Writable,
  options: StreamTransportOptions = {},
): Transport {
  const shared = writable === (readable as unknown);
  const release = (): void => {
    if (!writable.writableEnded && !writable.destroyed) writable.end();
    if (shared) readable.resume();
    else readable.destroy();
  };
  const channel = createChannel({
    readable,
    writable,
    framing: options.framing ?? DEFAULT_STREAM_FRAMING,
    maxMessageBytes: options.maxMessageBytes,
    maxHeaderBytes: options.maxHeaderBytes,
    onEnd: () => {
      channel.stop(undefined, true);
      release();
    },
    onStreamError: (error) => {
      channel.stop(new TransportError(`Stream failed: ${error.message}`, { cause: error }), false);
      readable.destroy();
      if (!shared) writable.destroy();
    },
    onStreamClose: () => {
      channel.stop(new TransportError('Stream closed'), false);
      release();
    },
  });
  return channelTransport(channel, release);
}
