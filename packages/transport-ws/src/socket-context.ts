/**
 * The {@link TransportContext} of one accepted WebSocket, with a signal made only when read.
 *
 * @module
 */
import type { IncomingHttpHeaders, IncomingMessage } from 'node:http';
import type { TransportContext, TransportHeaders } from '@jsonrpc-kit/core';

/**
 * Headers of the opening handshake that only the handshake reads: a socket does not keep them
 * (with its key, they are about half of a typical upgrade's header bytes).
 */
const HANDSHAKE_ONLY: ReadonlySet<string> = new Set([
  'connection',
  'upgrade',
  'sec-websocket-key',
  'sec-websocket-version',
  'sec-websocket-extensions',
]);

/**
 * The upgrade request's headers a connection keeps: all but {@link HANDSHAKE_ONLY}, in a new
 * object, so that the request's own (and its handshake-only values) can be collected.
 *
 * @param headers - the upgrade request's headers
 * @returns the headers to keep
 */
function keptHeaders(headers: IncomingHttpHeaders): TransportHeaders {
  const kept: Record<string, string | string[] | undefined> = {};
  for (const name in headers) {
    if (!HANDSHAKE_ONLY.has(name)) kept[name] = headers[name];
  }
  return kept;
}

/**
 * A TransportContext whose `signal` is the socket transport's, read through so that a socket
 * whose handlers never look at it pays for no AbortController. A class so that the getter lives
 * once on the prototype instead of once per socket.
 */
export class SocketContext implements TransportContext {
  readonly kind: 'ws' = 'ws';
  readonly maxMessageBytes: number;
  readonly headers: TransportHeaders;
  readonly remoteAddress?: string;
  readonly url?: string;
  readonly #source: { readonly signal: AbortSignal };

  /**
   * @param request - the upgrade request: its headers (but the handshake's own), remote address
   *   and URL
   * @param source - what owns the signal (the socket's transport)
   * @param maxMessageBytes - the size limit the server applies to this socket's messages
   */
  constructor(
    request: IncomingMessage,
    source: { readonly signal: AbortSignal },
    maxMessageBytes: number,
  ) {
    this.maxMessageBytes = maxMessageBytes;
    this.headers = keptHeaders(request.headers);
    const remoteAddress = request.socket.remoteAddress;
    if (remoteAddress !== undefined) {
      (this as { remoteAddress?: string }).remoteAddress = remoteAddress;
    }
    if (request.url !== undefined) (this as { url?: string }).url = request.url;
    this.#source = source;
  }

  /** Aborted when the socket closes. */
  get signal(): AbortSignal {
    return this.#source.signal;
  }
}
