/**
 * `WsSocketTransport`: the transport of one accepted `ws` socket, the class behind
 * `createSocketTransport` and the WebSocket server's sockets (text frames in and out, the send
 * flow, the close and what it tells the owner and the server).
 *
 * @module
 */
import type { Socket } from 'node:net';
import {
  ConnectionClosedError,
  LocalError,
  RequestTooLargeError,
  TransportError,
  type TransportHandler,
} from '@jsonrpc-kit/core';
import { toError } from '@jsonrpc-kit/core/engine';
import { binaryFrameText, INVALID_UTF8_ANSWER } from './binary-frame.js';
import { CloseCode, closeReasonText, isCleanClose } from './close-codes.js';
import { noop } from './noop.js';
import {
  afterSend,
  beforeSend,
  type DrainWait,
  type FlowTurn,
  failWait,
  RESOLVED,
  type SendFlowOwner,
} from './send-flow.js';
import type {
  ServerSocketLike,
  SocketData,
  SocketSettings,
  SocketTransport,
  SocketWatcher,
} from './socket-types.js';
import { plainFrameTarget, writeTextFrame } from './text-frame.js';

/** `ws` send options that make a frame of bytes a text frame. */
const TEXT_FRAME = { binary: false } as const;

/** How often a waiting `send()` re-checks a send buffer that emits no `drain` event, in ms. */
const DRAIN_POLL_MS = 5;

const OPEN = 1;
const CLOSING = 2;

/** Facts of a transport's life, one bit each in `WsSocketTransport`'s flags. */
const STARTED = 1;
/** The socket is closing or closed: sends are refused. */
const CLOSED = 2;
/** `close()` was called. */
const CLOSE_REQUESTED = 4;
/** The socket's `close` event came. */
const CLOSE_SEEN = 8;
/** The owner's `onClose` was called. */
const CLOSE_NOTIFIED = 16;
/** The close has been handled to the end (`closed` resolves at once from here). */
const CLOSE_DONE = 32;
/** Text frames of bytes may be written to the network socket directly (see `text-frame.ts`). */
const PLAIN_FRAMES = 64;

/**
 * What a transport needs only in rare moments: messages before `start()`, the socket's error,
 * the close's error, the signal and `closed` promise once someone reads them, and the listener of
 * a socket the user wrapped. Made on first need, so an idle served socket holds none of it.
 */
interface Rare {
  inbox: string[] | undefined;
  lastError: Error | undefined;
  closeError: Error | undefined;
  controller: AbortController | undefined;
  closedPromise: Promise<void> | undefined;
  resolveClosed: (() => void) | undefined;
  /** The `message` listener of a socket not served by `createWebSocketServer`. */
  messageListener: ((data: SocketData, isBinary: boolean) => void) | undefined;
}

function newRare(): Rare {
  return {
    inbox: undefined,
    lastError: undefined,
    closeError: undefined,
    controller: undefined,
    closedPromise: undefined,
    resolveClosed: undefined,
    messageListener: undefined,
  };
}

/**
 * The transport of one socket. A class rather than closures because a server holds one per
 * socket: its methods live once on the prototype, its settings are shared, its life is one
 * field of bits, and what only some sockets ever need (an inbox, an AbortController, a `closed`
 * promise, errors) waits in a side object made on first need.
 */
export class WsSocketTransport<S extends ServerSocketLike>
  implements SocketTransport<S>, SendFlowOwner
{
  readonly socket: S;
  readonly #settings: SocketSettings;
  /** The network socket under the WebSocket, corked by the send flow. */
  readonly #raw: Socket | undefined;
  readonly #watcher: SocketWatcher | undefined;
  #handler: TransportHandler | undefined;
  /** {@link STARTED}, {@link CLOSED}, … */
  #flags = 0;
  #rare: Rare | undefined;
  flowTurn: FlowTurn;
  flowWait: DrainWait | undefined;

  /** The transport of each served socket, for the listeners every served socket shares. */
  static readonly #served = new WeakMap<object, WsSocketTransport<ServerSocketLike>>();

  /** The watcher of a served socket (see `watcherOf` in `socket-transport.ts`). */
  static watcherOf(socket: object): SocketWatcher | undefined {
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
    if (transport !== undefined) transport.#onSocketError(error);
  }

  /** The socket's `error`: kept for the close error; a message too large to read is reported. */
  #onSocketError(error: Error): void {
    this.#rareState().lastError = error;
    if ((error as { code?: unknown }).code === 'WS_ERR_UNSUPPORTED_MESSAGE_LENGTH') {
      this.#report(
        new RequestTooLargeError(
          'A message too large to read was refused unread; the socket is closed with 1009',
          undefined,
          { cause: error },
        ),
      );
    }
  }

  static #sharedClose(this: object, code: number, reason: Buffer): void {
    const transport = WsSocketTransport.#served.get(this);
    if (transport !== undefined) transport.#onClose(code, reason);
  }

  constructor(socket: S, settings: SocketSettings, watcher: SocketWatcher | undefined) {
    this.socket = socket;
    this.#settings = settings;
    this.#watcher = watcher;
    this.#raw = (socket as unknown as { _socket?: Socket })._socket;
    this.flowTurn = undefined;
    this.flowWait = undefined;
    if (socket.readyState >= CLOSING) this.#flags = CLOSED;
    else if (plainFrameTarget(socket) !== undefined) this.#flags = PLAIN_FRAMES;
    if (watcher === undefined) {
      const rare = this.#rareState();
      rare.messageListener = (data, isBinary) => this.#onMessage(data, isBinary);
      socket.on('message', rare.messageListener);
      socket.on('error', (error) => this.#onSocketError(error));
      socket.once('close', (code, reason) => this.#onClose(code, reason));
    } else {
      WsSocketTransport.#served.set(socket, this);
      socket.on('message', WsSocketTransport.#sharedMessage);
      socket.on('error', WsSocketTransport.#sharedError);
      // `ws` emits `close` once; `on` spares the wrapper that `once` makes.
      (socket as unknown as { on(event: 'close', listener: CloseListener): void }).on(
        'close',
        WsSocketTransport.#sharedClose,
      );
    }
    if (this.#flags & CLOSED) {
      queueMicrotask(() => this.#onClose(CloseCode.Abnormal, Buffer.alloc(0)));
    }
  }

  get closed(): Promise<void> {
    if (this.#flags & CLOSE_DONE) return RESOLVED;
    const rare = this.#rareState();
    rare.closedPromise ??= new Promise<void>((resolve) => {
      rare.resolveClosed = resolve;
    });
    return rare.closedPromise;
  }

  /** The handler's members are called as its methods, never copied (see core's `Transport`). */
  get callsHandlerMethods(): true {
    return true;
  }

  get signal(): AbortSignal {
    const rare = this.#rareState();
    if (rare.controller === undefined) {
      rare.controller = new AbortController();
      if (this.#flags & CLOSE_SEEN) rare.controller.abort(this.#abortReason());
    }
    return rare.controller.signal;
  }

  start(owner: TransportHandler): Promise<void> {
    if (this.#flags & STARTED) return Promise.reject(new Error('Transport already started'));
    this.#flags |= STARTED;
    this.#handler = owner;
    const buffered = this.#rare?.inbox;
    if (buffered !== undefined) {
      this.#rare!.inbox = undefined;
      for (const text of buffered) {
        if (text === INVALID_FRAME)
          this.#report(new TransportError('Binary frame is not valid UTF-8'));
        else this.#deliver(text);
      }
    }
    if (this.#flags & CLOSE_SEEN) this.#notifyClose();
    return RESOLVED;
  }

  send(message: string): Promise<void> {
    return this.#send(message, undefined);
  }

  sendBytes(head: Uint8Array, tail?: Uint8Array): Promise<void> {
    return this.#send(head, tail);
  }

  #send(message: string | Uint8Array, tail: Uint8Array | undefined): Promise<void> {
    const socket = this.socket;
    if (this.#flags & CLOSED || socket.readyState !== OPEN) {
      return Promise.reject(new ConnectionClosedError());
    }
    beforeSend(this, this.#raw);
    if (typeof message === 'string') socket.send(message);
    else if (this.#flags & PLAIN_FRAMES) writeTextFrame(this.#raw!, message, tail);
    else {
      socket.send(tail === undefined ? message : Buffer.concat([message, tail]), TEXT_FRAME);
    }
    // A frame sent is activity: a socket the server keeps pushing to is not idle.
    this.#watcher?.idle?.refresh();
    return afterSend(this, this.#settings.highWaterMark);
  }

  terminate(error: Error): void {
    if (this.#flags & CLOSE_SEEN) return;
    this.#rareState().lastError = error;
    this.socket.terminate();
  }

  close(reason?: unknown): Promise<void> {
    if ((this.#flags & (CLOSED | CLOSE_REQUESTED)) === 0) {
      this.#flags |= CLOSE_REQUESTED;
      const state = this.socket.readyState;
      if (state === OPEN || state === 0) {
        this.socket.close(CloseCode.Normal, closeReasonText(reason));
      }
    }
    return this.closed;
  }

  // The send flow's view of the socket (see `send-flow.ts`).

  flowBuffered(): number {
    return this.socket.bufferedAmount;
  }

  flowOpen(): boolean {
    return (this.#flags & CLOSED) === 0;
  }

  flowArm(check: () => void): void {
    if (this.#raw?.writableNeedDrain) this.#raw.once('drain', check);
    else setTimeout(check, DRAIN_POLL_MS);
  }

  flowPause(): void {
    this.socket.pause();
  }

  flowResume(): void {
    this.socket.resume();
  }

  #rareState(): Rare {
    this.#rare ??= newRare();
    return this.#rare;
  }

  #abortReason(): Error {
    return this.#rare?.closeError ?? new ConnectionClosedError();
  }

  #deliver(text: string): void {
    const handler = this.#handler;
    if (handler === undefined) {
      (this.#rareState().inbox ??= []).push(text);
      return;
    }
    try {
      handler.onMessage(text);
    } catch (error) {
      this.#report(toError(error));
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
    if (this.#flags & CLOSE_NOTIFIED || this.#handler === undefined) return;
    this.#flags |= CLOSE_NOTIFIED;
    this.#handler.onClose(this.#rare?.closeError);
  }

  #onMessage(data: SocketData, isBinary: boolean): void {
    if (!isBinary) {
      // ws has already checked that a text frame is UTF-8.
      this.#deliver((data as Buffer).toString());
      return;
    }
    const text = binaryFrameText(data);
    if (text !== undefined) {
      this.#deliver(text);
      return;
    }
    if (this.#handler === undefined) {
      // Keep the order of events: report once started.
      (this.#rareState().inbox ??= []).push(INVALID_FRAME);
    } else {
      this.#report(new TransportError('Binary frame is not valid UTF-8'));
    }
    if (this.#settings.answerInvalidFrames && this.socket.readyState === OPEN) {
      this.send(INVALID_UTF8_ANSWER).catch(noop);
    }
  }

  #onClose(code: number, reason: Buffer): void {
    if (this.#flags & CLOSE_SEEN) return;
    this.#flags |= CLOSE_SEEN | CLOSED;
    const rare = this.#rare;
    const lastError = rare?.lastError;
    if ((this.#flags & CLOSE_REQUESTED) === 0 && (!isCleanClose(code) || lastError !== undefined)) {
      const text =
        reason.length > 0
          ? `: ${reason.toString()}`
          : code === CloseCode.MessageTooBig
            ? `: a message was too large for the ${this.#watcher === undefined ? 'server' : 'client'}`
            : '';
      this.#rareState().closeError =
        lastError instanceof LocalError
          ? lastError
          : lastError === undefined
            ? new ConnectionClosedError(`WebSocket closed (${code}${text})`)
            : new ConnectionClosedError(`WebSocket closed (${code}): ${lastError.message}`, {
                cause: lastError,
              });
    }
    failWait(this, new ConnectionClosedError());
    this.socket.off('message', rare?.messageListener ?? WsSocketTransport.#sharedMessage);
    // Read afresh from here: the side object may be made meanwhile (the owner reads `closed`).
    this.#rare?.controller?.abort(this.#abortReason());
    this.#notifyClose();
    this.#flags |= CLOSE_DONE;
    this.#rare?.resolveClosed?.();
    if (this.#watcher !== undefined) {
      WsSocketTransport.#served.delete(this.socket);
      this.#watcher.socketClosed();
    }
  }
}

/** A socket's `close` listener. */
type CloseListener = (code: number, reason: Buffer) => void;

/** Marks a refused frame in the pre-start inbox (never a valid message text). */
const INVALID_FRAME = '\u0000invalid-frame';
