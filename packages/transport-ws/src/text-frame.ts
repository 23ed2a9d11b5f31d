/**
 * Text frames a served socket's transport writes itself: a message given as bytes (a published
 * subscription item, in two parts: the subscriber's envelope head and the item's shared tail)
 * becomes one frame in one buffer and one write, where `ws` would take a joined copy, frame it
 * in a second buffer and write both through a corked vectored write.
 *
 * Only for sockets whose frames `ws` would write as they are: the server's side (frames are not
 * masked) with no extension negotiated (no compression, so `ws` never holds a frame back and
 * the two ways of writing cannot overtake each other).
 *
 * @module
 */
import type { Socket } from 'node:net';

/** Above this size, the header and the parts are written as they are rather than copied. */
const COPY_LIMIT = 64 * 1024;

/** The part of a `ws` socket that tells whether its frames may be written directly. */
interface WsInternals {
  readonly extensions?: unknown;
  /** `ws` sets this on the sockets a `WebSocketServer` accepted. */
  readonly _isServer?: unknown;
  /** The network socket under the WebSocket. */
  readonly _socket?: Partial<Socket>;
}

/**
 * The network socket to write text frames to directly, when the WebSocket allows it: a server
 * socket of `ws` with no extension negotiated.
 *
 * @param socket - the WebSocket
 * @returns its network socket, or `undefined` when frames must go through `ws`
 */
export function plainFrameTarget(socket: object): Socket | undefined {
  const ws = socket as WsInternals;
  const raw = ws._socket;
  if (ws._isServer !== true || ws.extensions !== '' || typeof raw?.write !== 'function') {
    return undefined;
  }
  return raw as Socket;
}

/**
 * Writes the header of an unmasked final text frame of `size` bytes (RFC 6455, section 5.2) at
 * the start of `target` ({@link headerSize} bytes).
 */
function writeHeader(target: Buffer, size: number): void {
  target[0] = 0x81; // FIN, text
  if (size < 126) {
    target[1] = size;
  } else if (size < 65_536) {
    target[1] = 126;
    target.writeUInt16BE(size, 2);
  } else {
    target[1] = 127;
    target.writeUInt32BE(Math.floor(size / 2 ** 32), 2);
    target.writeUInt32BE(size >>> 0, 6);
  }
}

/** Bytes of the header of a frame of `size` bytes. */
function headerSize(size: number): number {
  return size < 126 ? 2 : size < 65_536 ? 4 : 10;
}

/**
 * Writes one text frame whose payload is `head` followed by `tail`. Small frames are one buffer
 * and one write; large ones write the header and the parts as they are (no copy).
 *
 * @param raw - the network socket (from {@link plainFrameTarget})
 * @param head - the payload's first bytes (UTF-8)
 * @param tail - the bytes after them, if any
 */
export function writeTextFrame(raw: Socket, head: Uint8Array, tail: Uint8Array | undefined): void {
  const size = head.length + (tail === undefined ? 0 : tail.length);
  const start = headerSize(size);
  if (size <= COPY_LIMIT) {
    const frame = Buffer.allocUnsafe(start + size);
    writeHeader(frame, size);
    frame.set(head, start);
    if (tail !== undefined) frame.set(tail, start + head.length);
    raw.write(frame);
    return;
  }
  const header = Buffer.allocUnsafe(start);
  writeHeader(header, size);
  raw.cork();
  raw.write(header);
  raw.write(head);
  if (tail !== undefined) raw.write(tail);
  raw.uncork();
}
