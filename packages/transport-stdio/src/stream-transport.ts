/**
 * A transport over any pair of byte streams: TCP or Unix sockets, pipes, PassThrough pairs.
 *
 * @module
 */

import type { Readable, Writable } from 'node:stream';
import { type Transport, TransportError } from '@jsonrpc-kit/core';
import { DEFAULT_HIGH_WATER_MARK } from '@jsonrpc-kit/core/engine';
import { channelTransport, createChannel } from './channel.js';
import type { Framing } from './framing.js';
import { checkStdioOptions } from './option-names.js';
import type { StreamTransportOptions } from './transport-options.js';

export type { FramedTransportOptions, StreamTransportOptions } from './transport-options.js';

/**
 * The framing of {@link createStreamTransport} and {@link spawnTransport} when none is given.
 *
 * @default 'content-length'
 */
export const DEFAULT_STREAM_FRAMING: Framing = 'content-length';

/**
 * Bytes of outgoing messages that may wait to be written before the transport gives up on the
 * peer: it closes with a `TransportError` (code `TRANSPORT_ERROR`). Reading pauses long before
 * (at the high-water mark), so only what was already being handled, or what the application
 * itself pushes, can reach it.
 *
 * @default 67108864 (64 MiB)
 */
export const DEFAULT_MAX_QUEUED_BYTES: number = 64 * 1024 * 1024;

/**
 * Creates a transport over a readable and a writable byte stream (the same object for a socket).
 * Messages sent together (in one tick; under load, in one event-loop turn) go out as one write;
 * `send()` resolves once the stream accepted the data, waiting for `'drain'` when it is full. While
 * more than `highWaterMark` bytes wait to be written, the readable is paused (a peer that does not
 * read its answers is not read either); past `maxQueuedBytes` the transport closes with a
 * `TransportError`. The peer ending its side closes the transport (`onClose()` without an error); a
 * stream error closes it with a `TransportError`. `close()` writes what is queued, ends the
 * writable, and stops reading.
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
  checkStdioOptions('createStreamTransport', options);
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
    highWaterMark: options.highWaterMark ?? DEFAULT_HIGH_WATER_MARK,
    maxQueuedBytes: options.maxQueuedBytes ?? DEFAULT_MAX_QUEUED_BYTES,
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
