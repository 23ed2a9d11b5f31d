import { WebSocket } from 'ws';

/** A raw WebSocket: text frames out, text frames in, no JSON-RPC endpoint on top. */
export interface RawSocket {
  /** Sends one text frame. */
  send(text: string): void;
  /** Waits (at most 2 s) for the next frame received. */
  next(): Promise<string>;
  /** Closes the socket. */
  close(): void;
}

/**
 * Opens a raw WebSocket to `url`.
 *
 * @param url - `ws://127.0.0.1:PORT/`
 * @returns the socket, once open
 */
export async function openRawSocket(url: string): Promise<RawSocket> {
  const socket = new WebSocket(url);
  const frames: string[] = [];
  socket.on('message', (data) => frames.push(String(data)));
  await new Promise((resolve, reject) => {
    socket.once('open', resolve);
    socket.once('error', reject);
  });
  return {
    send: (text) => socket.send(text),
    async next() {
      for (let i = 0; i < 400 && frames.length === 0; i++) {
        await new Promise((resolve) => setTimeout(resolve, 5));
      }
      const frame = frames.shift();
      if (frame === undefined) throw new Error('no frame within 2 s');
      return frame;
    },
    close: () => socket.close(),
  };
}
