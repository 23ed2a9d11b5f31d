/**
 * A core `Transport` over one accepted `ws` socket (the server side): text frames in and out,
 * writes coalesced per event-loop turn, backpressure that stops reading a socket whose send
 * buffer is over a bound. The transport itself is `ws-socket-transport.ts`, its shapes are in
 * `socket-types.ts`.
 *
 * @module
 */
import type { Transport } from '@jsonrpc-kit/core';
import { DEFAULT_HIGH_WATER_MARK } from '@jsonrpc-kit/core/engine';
import type {
  ServerSocketLike,
  SocketSettings,
  SocketTransport,
  SocketTransportOptions,
  SocketWatcher,
} from './socket-types.js';
import { WsSocketTransport } from './ws-socket-transport.js';

export type { SocketTransport } from './socket-types.js';

/**
 * Wraps an open `ws` socket as a core {@link Transport}. Text frames carry messages; a binary
 * frame is decoded as UTF-8, or refused (`onError`, and a -32700 answer) when it is not UTF-8.
 * The frames of one event-loop turn are written to the network together, in one write, when the
 * turn's microtasks have run. `send()` resolves at
 * once unless the socket's `bufferedAmount` passed `highWaterMark`: then the socket stops being
 * read and `send()` resolves when the buffer has drained.
 *
 * `createWebSocketServer` uses this for every socket it accepts; use it directly when you run
 * your own `ws` server.
 *
 * @param socket - an open `ws` socket (messages arriving before `start()` are buffered)
 * @param options - backpressure bound and invalid-frame policy
 * @returns the transport
 * @throws never; `send()` rejects with `CONNECTION_CLOSED` once the socket is closing
 * @example
 * ```ts
 * import { WebSocketServer } from 'ws';
 * const wss = new WebSocketServer({ port: 0 });
 * wss.on('connection', (socket) => server.connect(createSocketTransport(socket)));
 * ```
 */
export function createSocketTransport<S extends ServerSocketLike>(
  socket: S,
  options: SocketTransportOptions = {},
): SocketTransport<S> {
  return new WsSocketTransport(
    socket,
    {
      highWaterMark: options.highWaterMark ?? DEFAULT_HIGH_WATER_MARK,
      answerInvalidFrames: options.answerInvalidFrames ?? true,
    },
    undefined,
  );
}

/**
 * The transport of a socket the server accepted: as {@link createSocketTransport}, and tells
 * `watcher` when it closes, so that the server keeps no promise and no closure per socket for it.
 *
 * @param socket - the accepted socket
 * @param settings - the server's settings, shared by its sockets
 * @param watcher - told when the socket closed
 * @returns the transport
 */
export function createServedSocketTransport<S extends ServerSocketLike>(
  socket: S,
  settings: SocketSettings,
  watcher: SocketWatcher,
): SocketTransport<S> {
  return new WsSocketTransport(socket, settings, watcher);
}

/**
 * The watcher a served socket's transport was made with, for listeners that every socket shares.
 *
 * @param socket - a socket passed to {@link createServedSocketTransport}
 * @returns its watcher, or `undefined` once it has closed (or for any other socket)
 */
export function watcherOf<W extends SocketWatcher>(socket: object): W | undefined {
  return WsSocketTransport.watcherOf(socket) as W | undefined;
}
