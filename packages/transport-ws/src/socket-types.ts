/**
 * The shapes of the server-side socket transport: its options, the `ws` socket it wraps, the
 * transport it is, and what a server shares with the transports of its sockets (their settings,
 * and the watcher each tells of its close).
 *
 * @module
 */
import type { Transport } from '@jsonrpc-kit/core';

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
  /** Sends one frame of bytes: a text frame with `{ binary: false }`. */
  send(data: Uint8Array, options: { binary?: boolean }): void;
  /** The extensions negotiated (`ws`): `''` when none. */
  readonly extensions?: string;
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
   * Sends one message as UTF-8 bytes, in one or two parts, as a text frame (core's
   * `Transport.sendBytes`): what a publish or `broadcast()` encoded once for every socket.
   * Where `ws` would write the frame as it is (a server socket, no compression negotiated),
   * the transport writes it itself, in one buffer and one write.
   *
   * @param head - the message's first bytes (or all of them)
   * @param tail - the bytes after `head`
   */
  sendBytes(head: Uint8Array, tail?: Uint8Array): Promise<void>;
  /**
   * Drops the socket at once (no close handshake); `onClose` gets `error`.
   *
   * @param error - why, handed to the owner's `onClose`
   */
  terminate(error: Error): void;
}

/** The settings of socket transports, one object shared by every socket of a server (internal). */
export interface SocketSettings {
  /** Bytes a socket may buffer before a send waits. */
  readonly highWaterMark: number;
  /** Answer a binary frame that is not UTF-8 with a -32700. */
  readonly answerInvalidFrames: boolean;
}

/** Told of a served socket's life, for the server's bookkeeping (internal). */
export interface SocketWatcher {
  /**
   * The socket's idle timer, refreshed by every frame the transport sends: a socket the server
   * keeps pushing to is not idle. `undefined` when the server has no idle timeout.
   */
  readonly idle: { refresh(): unknown } | undefined;
  /** The socket closed: called once, after its owner's `onClose`. */
  socketClosed(): void;
}
