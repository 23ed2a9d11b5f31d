/**
 * A transport over the current process's stdin and stdout, for servers started by their client.
 *
 * @module
 */

import type { Readable } from 'node:stream';
import { type Transport, TransportError } from '@jsonrpc-kit/core';
import { DEFAULT_HIGH_WATER_MARK } from '@jsonrpc-kit/core/engine';
import { channelTransport, createChannel } from './channel.js';
import type { Framing } from './framing.js';
import { checkStdioOptions } from './option-names.js';
import { DEFAULT_MAX_QUEUED_BYTES } from './stream-transport.js';
import type { StdioTransportOptions } from './transport-options.js';

export type { StdioTransportOptions } from './transport-options.js';

/**
 * The framing of {@link createStdioTransport} when none is given: detected from what the client
 * sends first.
 *
 * @default 'auto'
 */
export const DEFAULT_STDIO_FRAMING: Framing = 'auto';

/**
 * Creates a transport for a server in the current process, reading stdin and writing stdout. With
 * the default framing `'auto'`, the first bytes received decide between Content-Length and newline
 * framing, and answers use the same (sends made before that wait for it). Writes never interleave:
 * messages sent together (in one tick; under load, in one event-loop turn) go out as one write, in
 * order, waiting for `'drain'` when stdout is full. While more than `highWaterMark` bytes wait to
 * be written, stdin is not read (a client that does not read its answers is not read either); past
 * `maxQueuedBytes` the transport closes with a `TransportError`. stdin ending closes the transport
 * (`onClose()` without an error), or, when the owner listens to `onEnd` (a server's connection
 * does), tells it so that the answers of calls still running go out first; the owner closes the
 * transport after them. `close()` writes what is queued and stops reading stdin (unref'ing it, so
 * the process can exit while its parent keeps stdin open); it never ends or destroys stdout.
 *
 * @param options - framing, limits, and the streams to use instead of stdin and stdout
 * @returns the transport
 * @throws never; `send()` rejects with `ConnectionClosedError` (code `CONNECTION_CLOSED`) once
 *   closed, a stream error closes the transport with a `TransportError` (code `TRANSPORT_ERROR`)
 * @example
 * ```ts
 * const server = createServer();
 * server.method('ping', () => 'pong');
 * server.connect(createStdioTransport({ framing: 'newline' }));
 * ```
 */
export function createStdioTransport(options: StdioTransportOptions = {}): Transport {
  checkStdioOptions('createStdioTransport', options);
  const stdin = options.stdin ?? process.stdin;
  const stdout = options.stdout ?? process.stdout;
  // Stop reading, and let the process exit even though stdin stays open: a paused pipe or TTY
  // still holds the event loop unless it is unref'd.
  const release = (): void => {
    stdin.pause();
    (stdin as Readable & { unref?: () => void }).unref?.();
  };
  const channel = createChannel({
    readable: stdin,
    writable: stdout,
    framing: options.framing ?? DEFAULT_STDIO_FRAMING,
    maxMessageBytes: options.maxMessageBytes,
    maxHeaderBytes: options.maxHeaderBytes,
    highWaterMark: options.highWaterMark ?? DEFAULT_HIGH_WATER_MARK,
    maxQueuedBytes: options.maxQueuedBytes ?? DEFAULT_MAX_QUEUED_BYTES,
    onEnd: () => {
      // Answers to calls still running go out before the owner closes (a piped request file).
      if (channel.endInput()) return;
      channel.stop(undefined, true);
      release();
    },
    onStreamError: (error) => {
      channel.stop(new TransportError(`Stdio failed: ${error.message}`, { cause: error }), false);
      release();
    },
    onStreamClose: () => {
      channel.stop(new TransportError('Stdio closed'), false);
      release();
    },
  });
  return channelTransport(channel, release);
}
