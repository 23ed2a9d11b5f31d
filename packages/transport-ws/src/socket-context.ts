/**
 * The {@link TransportContext} of one accepted WebSocket, with a signal made only when read.
 *
 * @module
 */
import type { IncomingMessage } from 'node:http';
import type { TransportContext, TransportHeaders } from '@jsonrpc-kit/core';

/**
 * A TransportContext whose `signal` is the socket transport's, read through so that a socket
 * whose handlers never look at it pays for no AbortController. A class so that the getter lives
 * once on the prototype instead of once per socket.
 */
export class SocketContext implements TransportContext {
  readonly kind: 'ws' = 'ws';
  readonly maxRequestBytes: number;
  readonly headers: TransportHeaders;
  readonly remoteAddress?: string;
  readonly url?: string;
  readonly #source: { readonly signal: AbortSignal };

  /**
   * @param request - the upgrade request: its headers, remote address and URL
   * @param source - what owns the signal (the socket's transport)
   * @param maxRequestBytes - the size limit the server applies to this socket's messages
   */
  constructor(
    request: IncomingMessage,
    source: { readonly signal: AbortSignal },
    maxRequestBytes: number,
  ) {
    this.maxRequestBytes = maxRequestBytes;
    this.headers = request.headers;
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
