/**
 * A raw WebSocket connection to a target: text, binary and fragmented frames out; messages, their
 * frame type and the close code in.
 *
 * @module
 */
import WebSocket from 'ws';
import { createReadBudget, type ReadBudget } from './budget.js';
import { createInbox, type Inbox } from './inbox.js';

/** A raw WebSocket connection. */
export interface WsConnection {
  readonly inbox: Inbox;
  /** Sends one text frame. */
  send(text: string): void;
  /** Sends bytes as one binary frame. */
  sendBinary(bytes: Buffer): void;
  /** Sends bytes as a text frame as they are (no UTF-8 check). */
  sendRawText(bytes: Buffer): void;
  /** Sends a text message as several frames (a fragmented message), `delayMs` apart. */
  sendFragments(parts: readonly string[], delayMs: number): Promise<void>;
  /** Resolves with the close code once the connection has closed. */
  readonly closed: Promise<number>;
  /** Whether the connection is closed or closing. */
  readonly isClosed: boolean;
  /** Closes with `code` and waits (then terminates after `timeoutMs`). */
  close(code?: number, timeoutMs?: number): Promise<number>;
}

/**
 * Opens a raw WebSocket connection.
 *
 * @param url - the `ws:` or `wss:` endpoint
 * @param timeoutMs - how long the opening handshake may take
 * @param budget - counts the bytes of the messages read; past its bound (or for one message
 *   larger than it) the connection is dropped
 * @returns the open connection
 * @throws Error when the handshake fails or takes longer than `timeoutMs`
 */
export async function openWs(
  url: string,
  timeoutMs: number,
  budget: ReadBudget = createReadBudget(Number.POSITIVE_INFINITY),
): Promise<WsConnection> {
  // ws refuses a message larger than maxPayload as it arrives (close code 1009), before holding it.
  const maxPayload = Number.isFinite(budget.limit) ? budget.limit : 256 * 1024 * 1024;
  const socket = new WebSocket(url, { handshakeTimeout: timeoutMs, maxPayload });
  const inbox = createInbox();
  const closed = new Promise<number>((resolve) => {
    socket.on('close', (code) => {
      inbox.end();
      resolve(code);
    });
  });
  socket.on('message', (data: Buffer | ArrayBuffer | Buffer[], isBinary: boolean) => {
    const bytes = Array.isArray(data)
      ? Buffer.concat(data)
      : Buffer.isBuffer(data)
        ? data
        : Buffer.from(data);
    if (inbox.ended) return;
    if (!budget.take(bytes.length)) {
      inbox.end();
      socket.terminate();
      return;
    }
    inbox.push({ text: bytes.toString('utf8'), binary: isBinary });
  });
  await new Promise<void>((resolve, reject) => {
    socket.once('open', () => {
      socket.off('error', reject);
      // Later errors (a reset) end the connection; the close event reports them.
      socket.on('error', (error: Error & { code?: string }) => {
        if (error.code === 'WS_ERR_UNSUPPORTED_MESSAGE_LENGTH') budget.exceed();
      });
      resolve();
    });
    socket.once('error', reject);
  });
  const isOpen = (): boolean => socket.readyState === WebSocket.OPEN;
  return {
    inbox,
    send(text) {
      if (isOpen()) socket.send(text);
    },
    sendBinary(bytes) {
      if (isOpen()) socket.send(bytes, { binary: true });
    },
    sendRawText(bytes) {
      if (isOpen()) socket.send(bytes, { binary: false });
    },
    async sendFragments(parts, delayMs) {
      for (let i = 0; i < parts.length; i++) {
        if (!isOpen()) return;
        socket.send(parts[i]!, { binary: false, fin: i === parts.length - 1 });
        if (i < parts.length - 1) await new Promise((resolve) => setTimeout(resolve, delayMs));
      }
    },
    closed,
    get isClosed() {
      return socket.readyState === WebSocket.CLOSED || socket.readyState === WebSocket.CLOSING;
    },
    async close(code = 1000, timeoutMs = 1_000) {
      if (socket.readyState === WebSocket.OPEN) socket.close(code);
      const timer = setTimeout(() => socket.terminate(), timeoutMs);
      const result = await closed;
      clearTimeout(timer);
      return result;
    },
  };
}
