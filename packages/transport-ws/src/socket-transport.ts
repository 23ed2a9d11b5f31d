/**
 * A core `Transport` over one accepted `ws` socket (the server side): text frames in and out,
 * writes coalesced per event-loop turn, backpressure that stops reading a socket whose send
 * buffer is over a bound.
 *
 * @module
 */
import { isUtf8 } from 'node:buffer';
import type { Socket } from 'node:net';
import {
  ConnectionClosedError,
  ErrorCode,
  LocalError,
  serializeError,
  type Transport,
  TransportError,
  type TransportHandler,
} from '@jsonrpc-kit/core';
import { CloseCode, closeReasonText, isCleanClose } from './close-codes.js';

/**
 * Bytes a socket may hold unsent before `send()` waits and the socket stops being read.
 *
 * @default 1048576 (1 MiB)
 */
export const DEFAULT_HIGH_WATER_MARK: number = 1024 * 1024;

/** How often a waiting `send()` re-checks a send buffer that emits no `drain` event, in ms. */
const DRAIN_POLL_MS = 5;

const OPEN = 1;
const CLOSING = 2;

/** The shared promise of a `send()` that did not have to wait. */
export const RESOLVED: Promise<void> = Promise.resolve();

/** The answer to a binary frame that is not UTF-8: a -32700 with a null id. */
const INVALID_UTF8_ANSWER: string = serializeError(null, {
  code: ErrorCode.ParseError,
  message: 'Parse error',
  data: 'binary frame is not valid UTF-8',
});

/** Options of {@link createSocketTransport}. */
export interface SocketTransportOptions {
  /**
   * Bytes the socket may buffer before `send()` waits for the buffer to drain and the socket
   * stops being read.
   *
   * @default DEFAULT_HIGH_WATER_MARK (1 MiB)
   */
  readonly highWaterMark?: number | undefined;
  /**
   * Answer a binary frame that is not valid UTF-8 with a -32700 error (id `null`) besides
   * reporting it through `onError`. Set on the server side.
   *
   * @default true
   */
  readonly answerInvalidFrames?: boolean | undefined;
}

/** A message's payload as `ws` hands it over (`ws`'s `RawData`). */
export type SocketData = Buffer | ArrayBuffer | Buffer[];

/**
 * The part of an accepted `ws` socket that {@link createSocketTransport} uses. A `ws`
 * `WebSocket` fits it; declared here so that the kit's public types do not need `@types/ws`.
 */
export interface ServerSocketLike {
  /** `0` connecting, `1` open, `2` closing, `3` closed. */
  readonly readyState: number;
  /** Bytes queued by `send()` and not yet written to the network. */
  readonly bufferedAmount: number;
  /** Sends one text frame. */
  send(data: string): void;
  /** Starts the closing handshake. */
  close(code?: number, reason?: string): void;
  /** Destroys the connection at once. */
  terminate(): void;
  /** Stops reading from the network. */
  pause(): void;
  /** Resumes reading from the network. */
  resume(): void;
  /** Listens for a message. */
  on(event: 'message', listener: (data: SocketData, isBinary: boolean) => void): unknown;
  /** Listens for an error. */
  on(event: 'error', listener: (error: Error) => void): unknown;
  /** Listens once for the close. */
  once(event: 'close', listener: (code: number, reason: Buffer) => void): unknown;
  /** Stops listening for messages. */
  off(event: 'message', listener: (data: SocketData, isBinary: boolean) => void): unknown;
}

/** A {@link Transport} over one `ws` socket. */
export interface SocketTransport<S extends ServerSocketLike = ServerSocketLike> extends Transport {
  /** The underlying socket, as passed to {@link createSocketTransport}. */
  readonly socket: S;
  /** Resolves when the socket has closed and `onClose` was called (or would have been). */
  readonly closed: Promise<void>;
  /** Aborted when the socket closes, before the owner's `onClose` runs. */
  readonly signal: AbortSignal;
  /**
   * Drops the socket at once (no close handshake); `onClose` gets `error`.
   *
   * @param error - why, handed to the owner's `onClose`
   */
  terminate(error: Error): void;
}

/** Where a socket is in the current event-loop turn: not written, written once, corked. */
type Turn = 0 | 1 | 2;
const TURN_IDLE = 0;
const TURN_WRITTEN = 1;
const TURN_CORKED = 2;

/** Yields in the same turn; `process.nextTick` flushes after the current microtasks settle. */
type Defer = (callback: () => void) => void;
const defer: Defer = process.nextTick;

/**
 * Wraps an open `ws` socket as a core {@link Transport}. Text frames carry messages; a binary
 * frame is decoded as UTF-8, or refused (`onError`, and a -32700 answer) when it is not UTF-8.
 * The first frame of an event-loop turn is written at once; the turn's further frames are
 * written to the network together, after it. `send()` resolves at
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
    options.highWaterMark ?? DEFAULT_HIGH_WATER_MARK,
    options.answerInvalidFrames ?? true,
    undefined,
  );
}

/** Told once when a socket's transport has closed, after its owner's `onClose` (internal). */
export interface SocketCloseWatcher {
  /** The socket closed. */
  socketClosed(): void;
}

/**
 * The transport of a socket the server accepted: as {@link createSocketTransport}, and tells
 * `watcher` when it closes, so that the server keeps no promise and no closure per socket for it.
 *
 * @param socket - the accepted socket
 * @param highWaterMark - the backpressure bound
 * @param watcher - told when the socket closed
 * @returns the transport
 */
export function createServedSocketTransport<S extends ServerSocketLike>(
  socket: S,
  highWaterMark: number,
  watcher: SocketCloseWatcher,
): SocketTransport<S> {
  return new WsSocketTransport(socket, highWaterMark, true, watcher);
}

/**
 * The watcher a served socket's transport was made with, for listeners that every socket shares.
 *
 * @param socket - a socket passed to {@link createServedSocketTransport}
 * @returns its watcher, or `undefined` once it has closed (or for any other socket)
 */
export function watcherOf<W extends SocketCloseWatcher>(socket: object): W | undefined {
  return WsSocketTransport.watcherOf(socket) as W | undefined;
}

/**
 * The transport of one socket. A class rather than closures because a server holds one per
 * socket: its methods live once on the prototype, and an idle socket holds no inbox, no
 * AbortController and no `closed` promise until someone asks for them.
 */
class WsSocketTransport<S extends ServerSocketLike> implements SocketTransport<S> {
  readonly socket: S;
  readonly #highWaterMark: number;
  readonly #answerInvalid: boolean;
  readonly #raw: Socket | undefined;
  #handler: TransportHandler | undefined;
  #inbox: string[] | undefined;
  #started = false;
  #closed: boolean;
  #closeError: Error | undefined;
  #closeNotified = false;
  #closeSeen = false;
  #closeRequested = false;
  #closeDone = false;
  #lastError: Error | undefined;
  #turn: Turn = TURN_IDLE;
  #drain: Promise<void> | undefined;
  #drainResolve: (() => void) | undefined;
  #drainReject: ((error: Error) => void) | undefined;
  #controller: AbortController | undefined;
  #closedPromise: Promise<void> | undefined;
  #resolveClosed: (() => void) | undefined;
  readonly #watcher: SocketCloseWatcher | undefined;
  /** The `message` listener, to remove it on close. */
  readonly #messageListener: (data: SocketData, isBinary: boolean) => void;

  /** The transport of each served socket, for the listeners every served socket shares. */
  static readonly #served = new WeakMap<object, WsSocketTransport<ServerSocketLike>>();

  /** See {@link watcherOf}. */
  static watcherOf(socket: object): SocketCloseWatcher | undefined {
    const transport = WsSocketTransport.#served.get(socket);
    return transport === undefined ? undefined : transport.#watcher;
  }

  // Shared listeners of served sockets (`this` is the socket): no closure per socket. A socket
  // the user hands to `createSocketTransport` may not call its listeners on itself, so it gets
  // closures.
  static #sharedMessage(this: object, data: SocketData, isBinary: boolean): void {
    const transport = WsSocketTransport.#served.get(this);
    if (transport !== undefined) transport.#onMessage(data, isBinary);
  }

  static #sharedError(this: object, error: Error): void {
    const transport = WsSocketTransport.#served.get(this);
    if (transport !== undefined) transport.#lastError = error;
  }

  static #sharedClose(this: object, code: number, reason: Buffer): void {
    const transport = WsSocketTransport.#served.get(this);
    if (transport !== undefined) transport.#onClose(code, reason);
  }

  constructor(
    socket: S,
    highWaterMark: number,
    answerInvalid: boolean,
    watcher: SocketCloseWatcher | undefined,
  ) {
    this.socket = socket;
    this.#watcher = watcher;
    this.#highWaterMark = highWaterMark;
    this.#answerInvalid = answerInvalid;
    this.#raw = (socket as unknown as { _socket?: Socket })._socket;
    this.#closed = socket.readyState >= CLOSING;
    if (watcher === undefined) {
      this.#messageListener = (data, isBinary) => this.#onMessage(data, isBinary);
      socket.on('message', this.#messageListener);
      socket.on('error', (error) => {
        this.#lastError = error;
      });
      socket.once('close', (code, reason) => this.#onClose(code, reason));
    } else {
      WsSocketTransport.#served.set(socket, this);
      this.#messageListener = WsSocketTransport.#sharedMessage;
      socket.on('message', this.#messageListener);
      socket.on('error', WsSocketTransport.#sharedError);
      // `ws` emits `close` once; `on` spares the wrapper that `once` makes.
      (socket as unknown as { on(event: 'close', listener: CloseListener): void }).on(
        'close',
        WsSocketTransport.#sharedClose,
      );
    }
    if (this.#closed) queueMicrotask(() => this.#onClose(CloseCode.Abnormal, Buffer.alloc(0)));
  }

  get closed(): Promise<void> {
    if (this.#closedPromise === undefined) {
      this.#closedPromise = this.#closeDone
        ? RESOLVED
        : new Promise<void>((resolve) => {
            this.#resolveClosed = resolve;
          });
    }
    return this.#closedPromise;
  }

  get signal(): AbortSignal {
    if (this.#controller === undefined) {
      this.#controller = new AbortController();
      if (this.#closeSeen) this.#controller.abort(this.#abortReason());
    }
    return this.#controller.signal;
  }

  start(owner: TransportHandler): Promise<void> {
    if (this.#started) return Promise.reject(new Error('Transport already started'));
    this.#started = true;
    this.#handler = owner;
    const buffered = this.#inbox ?? [];
    this.#inbox = undefined;
    for (const text of buffered) {
      if (text === INVALID_FRAME)
        this.#report(new TransportError('Binary frame is not valid UTF-8'));
      else this.#deliver(text);
    }
    if (this.#closeSeen) this.#notifyClose();
    return RESOLVED;
  }

  send(message: string): Promise<void> {
    const socket = this.socket;
    if (this.#closed || socket.readyState !== OPEN) {
      return Promise.reject(new ConnectionClosedError());
    }
    const raw = this.#raw;
    if (raw !== undefined) {
      const turn = this.#turn;
      if (turn === TURN_IDLE) {
        // The turn's first frame is written through: a turn with one frame (a broadcast to many
        // sockets sends one each) costs no cork.
        this.#turn = TURN_WRITTEN;
        const written = WsSocketTransport.#writtenThisTurn;
        written.push(this);
        if (written.length === 1) process.nextTick(WsSocketTransport.#endTurn);
      } else if (turn === TURN_WRITTEN) {
        // A second frame in the same turn: the rest of the turn leaves in one write.
        this.#turn = TURN_CORKED;
        raw.cork();
      }
    }
    socket.send(message);
    return this.#drain !== undefined || socket.bufferedAmount > this.#highWaterMark
      ? this.#waitDrain()
      : RESOLVED;
  }

  terminate(error: Error): void {
    if (this.#closeSeen) return;
    this.#lastError = error;
    this.socket.terminate();
  }

  close(reason?: unknown): Promise<void> {
    if (!this.#closed && !this.#closeRequested) {
      this.#closeRequested = true;
      const state = this.socket.readyState;
      if (state === OPEN || state === 0) {
        this.socket.close(CloseCode.Normal, closeReasonText(reason));
      }
    }
    return this.closed;
  }

  #abortReason(): Error {
    return this.#closeError ?? new ConnectionClosedError();
  }

  /** The transports that wrote in this turn: one tick ends the turn for all of them. */
  static #writtenThisTurn: WsSocketTransport<ServerSocketLike>[] = [];

  /** Writes what the turn corked, on every socket, and starts a new turn (on the next tick). */
  static #endTurn(): void {
    const written = WsSocketTransport.#writtenThisTurn;
    WsSocketTransport.#writtenThisTurn = [];
    for (let i = 0; i < written.length; i++) {
      const transport = written[i]!;
      if (transport.#turn === TURN_CORKED) transport.#raw!.uncork();
      transport.#turn = TURN_IDLE;
    }
  }

  #deliver(text: string): void {
    const handler = this.#handler;
    if (handler === undefined) {
      (this.#inbox ??= []).push(text);
      return;
    }
    try {
      handler.onMessage(text);
    } catch (error) {
      this.#report(error instanceof Error ? error : new Error(String(error)));
    }
  }

  #report(error: Error): void {
    try {
      this.#handler?.onError?.(error);
    } catch {
      // An owner's error hook must not break the socket.
    }
  }

  #notifyClose(): void {
    if (this.#closeNotified || this.#handler === undefined) return;
    this.#closeNotified = true;
    this.#handler.onClose(this.#closeError);
  }

  #onMessage(data: SocketData, isBinary: boolean): void {
    if (!isBinary) {
      // ws has already checked that a text frame is UTF-8.
      this.#deliver((data as Buffer).toString());
      return;
    }
    const bytes = toBuffer(data);
    if (isUtf8(bytes)) {
      this.#deliver(bytes.toString());
      return;
    }
    if (this.#handler === undefined) {
      // Keep the order of events: report once started.
      (this.#inbox ??= []).push(INVALID_FRAME);
    } else {
      this.#report(new TransportError('Binary frame is not valid UTF-8'));
    }
    if (this.#answerInvalid && this.socket.readyState === OPEN) {
      this.send(INVALID_UTF8_ANSWER).catch(noop);
    }
  }

  #onClose(code: number, reason: Buffer): void {
    if (this.#closeSeen) return;
    this.#closeSeen = true;
    this.#closed = true;
    const lastError = this.#lastError;
    if (!this.#closeRequested && (!isCleanClose(code) || lastError !== undefined)) {
      const text = reason.length > 0 ? `: ${reason.toString()}` : '';
      this.#closeError =
        lastError instanceof LocalError
          ? lastError
          : lastError === undefined
            ? new ConnectionClosedError(`WebSocket closed (${code}${text})`)
            : new ConnectionClosedError(`WebSocket closed (${code}): ${lastError.message}`, {
                cause: lastError,
              });
    }
    if (this.#drainReject !== undefined) this.#drainReject(new ConnectionClosedError());
    this.#drain = this.#drainResolve = this.#drainReject = undefined;
    this.socket.off('message', this.#messageListener);
    this.#controller?.abort(this.#abortReason());
    this.#notifyClose();
    this.#closeDone = true;
    this.#resolveClosed?.();
    if (this.#watcher !== undefined) {
      WsSocketTransport.#served.delete(this.socket);
      this.#watcher.socketClosed();
    }
  }

  #checkDrain(): void {
    const resolve = this.#drainResolve;
    if (resolve === undefined) return;
    if (this.socket.bufferedAmount > this.#highWaterMark) {
      this.#armDrain();
      return;
    }
    this.#drain = this.#drainResolve = this.#drainReject = undefined;
    this.socket.resume();
    resolve();
  }

  // Closures for the drain wait are made only when a socket is over its bound.
  #armDrain(): void {
    const check = (): void => this.#checkDrain();
    if (this.#raw?.writableNeedDrain) this.#raw.once('drain', check);
    else setTimeout(check, DRAIN_POLL_MS);
  }

  #waitDrain(): Promise<void> {
    if (this.#drain === undefined) {
      this.#drain = new Promise<void>((resolve, reject) => {
        this.#drainResolve = resolve;
        this.#drainReject = reject;
      });
      this.socket.pause();
      // Armed after this turn's corked writes reach the socket.
      defer(() => this.#armDrain());
    }
    return this.#drain;
  }
}

/** A socket's `close` listener. */
type CloseListener = (code: number, reason: Buffer) => void;

/** Marks a refused frame in the pre-start inbox (never a valid message text). */
const INVALID_FRAME = '\u0000invalid-frame';

function noop(): void {}

function toBuffer(data: SocketData): Buffer {
  if (Buffer.isBuffer(data)) return data;
  if (Array.isArray(data)) return Buffer.concat(data);
  return Buffer.from(data);
}
