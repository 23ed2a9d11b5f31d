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

/** Yields in the same turn; `process.nextTick` flushes after the current microtasks settle. */
type Defer = (callback: () => void) => void;
const defer: Defer = process.nextTick;

/**
 * Wraps an open `ws` socket as a core {@link Transport}. Text frames carry messages; a binary
 * frame is decoded as UTF-8, or refused (`onError`, and a -32700 answer) when it is not UTF-8.
 * Frames sent in one event-loop turn are written to the network together. `send()` resolves at
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
  const highWaterMark = options.highWaterMark ?? DEFAULT_HIGH_WATER_MARK;
  const answerInvalid = options.answerInvalidFrames ?? true;
  const raw = (socket as unknown as { _socket?: Socket })._socket;

  let handler: TransportHandler | undefined;
  let inbox: string[] = [];
  let started = false;
  let closed = socket.readyState >= CLOSING;
  let closeError: Error | undefined;
  let closeNotified = false;
  let closeSeen = false;
  let closeRequested = false;
  let lastError: Error | undefined;
  let corked = false;
  let drain: Promise<void> | undefined;
  let drainResolve: (() => void) | undefined;
  let drainReject: ((error: Error) => void) | undefined;
  const controller = new AbortController();
  let resolveClosed!: () => void;
  const closedPromise = new Promise<void>((resolve) => {
    resolveClosed = resolve;
  });

  const uncork = (): void => {
    corked = false;
    raw!.uncork();
  };

  const deliver = (text: string): void => {
    if (handler === undefined) {
      inbox.push(text);
      return;
    }
    try {
      handler.onMessage(text);
    } catch (error) {
      report(error instanceof Error ? error : new Error(String(error)));
    }
  };

  const report = (error: Error): void => {
    try {
      handler?.onError?.(error);
    } catch {
      // An owner's error hook must not break the socket.
    }
  };

  const notifyClose = (): void => {
    if (closeNotified || handler === undefined) return;
    closeNotified = true;
    handler.onClose(closeError);
  };

  const onMessage = (data: SocketData, isBinary: boolean): void => {
    if (!isBinary) {
      // ws has already checked that a text frame is UTF-8.
      deliver((data as Buffer).toString());
      return;
    }
    const bytes = toBuffer(data);
    if (isUtf8(bytes)) {
      deliver(bytes.toString());
      return;
    }
    if (handler === undefined) {
      // Keep the order of events: report once started.
      inbox.push(INVALID_FRAME);
    } else {
      report(new TransportError('Binary frame is not valid UTF-8'));
    }
    if (answerInvalid && socket.readyState === OPEN) void send(INVALID_UTF8_ANSWER).catch(noop);
  };

  const onError = (error: Error): void => {
    lastError = error;
  };

  const onClose = (code: number, reason: Buffer): void => {
    if (closeSeen) return;
    closeSeen = true;
    closed = true;
    if (!closeRequested && (!isCleanClose(code) || lastError !== undefined)) {
      const text = reason.length > 0 ? `: ${reason.toString()}` : '';
      closeError =
        lastError instanceof LocalError
          ? lastError
          : lastError === undefined
            ? new ConnectionClosedError(`WebSocket closed (${code}${text})`)
            : new ConnectionClosedError(`WebSocket closed (${code}): ${lastError.message}`, {
                cause: lastError,
              });
    }
    if (drainReject !== undefined) drainReject(new ConnectionClosedError());
    drain = drainResolve = drainReject = undefined;
    socket.off('message', onMessage);
    controller.abort(closeError ?? new ConnectionClosedError());
    notifyClose();
    resolveClosed();
  };

  socket.on('message', onMessage);
  socket.on('error', onError);
  socket.once('close', onClose);
  if (closed) queueMicrotask(() => onClose(CloseCode.Abnormal, Buffer.alloc(0)));

  const checkDrain = (): void => {
    if (drainResolve === undefined) return;
    if (socket.bufferedAmount > highWaterMark) {
      armDrain();
      return;
    }
    const resolve = drainResolve;
    drain = drainResolve = drainReject = undefined;
    socket.resume();
    resolve();
  };

  const armDrain = (): void => {
    if (raw?.writableNeedDrain) raw.once('drain', checkDrain);
    else setTimeout(checkDrain, DRAIN_POLL_MS);
  };

  const waitDrain = (): Promise<void> => {
    if (drain === undefined) {
      drain = new Promise<void>((resolve, reject) => {
        drainResolve = resolve;
        drainReject = reject;
      });
      socket.pause();
      // Armed after this turn's corked writes reach the socket.
      defer(armDrain);
    }
    return drain;
  };

  const send = (message: string): Promise<void> => {
    if (closed || socket.readyState !== OPEN) {
      return Promise.reject(new ConnectionClosedError());
    }
    if (raw !== undefined && !corked) {
      corked = true;
      raw.cork();
      defer(uncork);
    }
    socket.send(message);
    return drain !== undefined || socket.bufferedAmount > highWaterMark ? waitDrain() : RESOLVED;
  };

  return {
    socket,
    closed: closedPromise,
    signal: controller.signal,
    start(owner) {
      if (started) return Promise.reject(new Error('Transport already started'));
      started = true;
      handler = owner;
      const buffered = inbox;
      inbox = [];
      for (const text of buffered) {
        if (text === INVALID_FRAME) report(new TransportError('Binary frame is not valid UTF-8'));
        else deliver(text);
      }
      if (closeSeen) notifyClose();
      return RESOLVED;
    },
    send,
    terminate(error) {
      if (closeSeen) return;
      lastError = error;
      socket.terminate();
    },
    close(reason) {
      if (!closed && !closeRequested) {
        closeRequested = true;
        if (socket.readyState === OPEN || socket.readyState === 0) {
          socket.close(CloseCode.Normal, closeReasonText(reason));
        }
      }
      return closedPromise;
    },
  };
}

/** Marks a refused frame in the pre-start inbox (never a valid message text). */
const INVALID_FRAME = '\u0000invalid-frame';

function noop(): void {}

function toBuffer(data: SocketData): Buffer {
  if (Buffer.isBuffer(data)) return data;
  if (Array.isArray(data)) return Buffer.concat(data);
  return Buffer.from(data);
}
