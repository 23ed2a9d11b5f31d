/**
 * The sockets one WebSocket server serves: each an {@link Entry} (its connection, heartbeat and
 * idle timer, and what its close undoes) in the server's {@link Pool}, the listeners every socket
 * shares, and the shutdown of one socket (its calls finish first, up to a deadline).
 *
 * @module
 */
import { TransportError } from '@jsonrpc-kit/core';
import type { ConnectionLike } from '@jsonrpc-kit/core/engine';
import type { WebSocket } from 'ws';
import { CloseCode } from './close-codes.js';
import type { HeartbeatSweeper, WatchedPeer } from './heartbeat.js';
import { watcherOf } from './socket-transport.js';
import type { SocketTransport, SocketWatcher } from './socket-types.js';

/** What every socket of one server shares: the bookkeeping an {@link Entry} updates on close. */
export interface Pool<C> {
  readonly entries: Map<C, Entry<C>>;
  readonly connections: Set<C>;
  /** Open sockets per remote address. */
  readonly perAddress: Map<string, number>;
  readonly heartbeat: HeartbeatSweeper | undefined;
  readonly heartbeatTimeout: number;
  /** Open sockets. */
  open: number;
}

/**
 * One served socket: what `close()` and `broadcast()` need, its heartbeat fields, and what its
 * close undoes. A class so that a socket costs its fields, not a closure per callback: the pong
 * and idle listeners are shared by every socket and find their entry through the socket.
 */
export class Entry<C> implements WatchedPeer, SocketWatcher {
  readonly socket: WebSocket;
  readonly #pool: Pool<C>;
  readonly #key: string;
  transport!: SocketTransport;
  /** The connection serving the socket; `undefined` until made (or when making it failed). */
  connection: C | undefined;
  idle: ReturnType<typeof setTimeout> | undefined;
  /** The socket closed. */
  gone = false;
  lastSeen: number = Date.now();
  pingSentAt = 0;

  constructor(socket: WebSocket, pool: Pool<C>, key: string) {
    this.socket = socket;
    this.#pool = pool;
    this.#key = key;
    pool.open++;
    pool.perAddress.set(key, (pool.perAddress.get(key) ?? 0) + 1);
  }

  ping(): void {
    this.socket.ping();
  }

  /** A pong came: the peer is alive. */
  alive(): void {
    this.#pool.heartbeat?.alive(this);
  }

  dead(): void {
    this.transport.terminate(
      new TransportError(`Heartbeat: no pong within ${this.#pool.heartbeatTimeout} ms`),
    );
  }

  socketClosed(): void {
    this.gone = true;
    const pool = this.#pool;
    pool.open--;
    const left = pool.perAddress.get(this.#key)! - 1;
    if (left === 0) pool.perAddress.delete(this.#key);
    else pool.perAddress.set(this.#key, left);
    if (this.idle !== undefined) clearTimeout(this.idle);
    const connection = this.connection;
    if (connection === undefined) return;
    pool.heartbeat?.remove(this);
    pool.entries.delete(connection);
    pool.connections.delete(connection);
  }
}

/** A socket's `pong` listener (`this` is the socket): its peer is alive. */
export function onPong(this: WebSocket): void {
  watcherOf<Entry<unknown>>(this)?.alive();
}

/**
 * A socket's `message` listener when an idle timeout is set: the socket is not idle. (A frame
 * sent refreshes the timer too, in the socket's transport.)
 */
export function onActivity(this: WebSocket): void {
  watcherOf<Entry<unknown>>(this)?.idle?.refresh();
}

/** The idle timer of a socket ran out: close it, unless one of its calls is still running. */
export function expireIdle(entry: Entry<ConnectionLike>): void {
  if (entry.connection !== undefined && inFlightOf(entry.connection) > 0) entry.idle!.refresh();
  else if (entry.socket.readyState === 1) entry.socket.close(CloseCode.GoingAway, 'Idle timeout');
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, Math.max(0, ms)));
}

/** The calls a connection says it is running (its `inFlight`; 0 when it does not say). */
function inFlightOf(connection: ConnectionLike): number {
  const value = (connection as { inFlight?: unknown }).inFlight;
  return typeof value === 'number' ? value : 0;
}

/**
 * Closes one served socket for a shutdown: lets its calls finish until `deadline`, closes it
 * with 1001, and terminates it if the close handshake has not ended by then (or within 200 ms).
 *
 * @param connection - the connection serving it
 * @param entry - its entry
 * @param deadline - when the shutdown ends (`Date.now()` time)
 * @returns resolves once its transport has closed
 */
export async function closeServed<C extends ConnectionLike>(
  connection: C,
  entry: Entry<C>,
  deadline: number,
): Promise<void> {
  let open = true;
  void entry.transport.closed.then(() => {
    open = false;
  });
  while (open && inFlightOf(connection) > 0 && Date.now() < deadline) {
    await sleep(Math.min(10, deadline - Date.now()));
  }
  if (!open) return;
  if (entry.socket.readyState === 1) {
    entry.socket.close(CloseCode.GoingAway, 'Server shutting down');
  }
  // The close handshake gets what is left of the deadline, and at least a moment.
  const grace = Math.max(deadline - Date.now(), 200);
  let timer: ReturnType<typeof setTimeout> | undefined;
  await Promise.race([
    entry.transport.closed,
    new Promise<void>((resolve) => {
      timer = setTimeout(resolve, grace);
    }),
  ]);
  clearTimeout(timer);
  if (open) {
    entry.transport.terminate(new TransportError('Server shut down'));
    await entry.transport.closed;
  }
}
