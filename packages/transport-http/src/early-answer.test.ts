import type { Socket } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { closeAll, echoServer, rawConnect, readResponse, serve, until } from '../test/helpers.js';
import { createHttpHandler, waitingBodies } from './node-handler.js';

afterEach(closeAll);

const MiB = 1024 * 1024;

/**
 * Writes `total` bytes of body in 64 KiB pieces, one piece per event-loop turn (a client that does
 * not wait for the answer before writing); resolves with the first error the socket reports.
 */
async function writeBody(
  socket: Socket,
  total: number,
  frame: (piece: Buffer) => string | Buffer = (p) => p,
): Promise<string | undefined> {
  const piece = Buffer.alloc(64 * 1024, 'x');
  let failed: string | undefined;
  socket.once('error', (error: NodeJS.ErrnoException) => {
    failed ??= error.code ?? error.message;
  });
  let sent = 0;
  while (sent < total && failed === undefined && !socket.destroyed) {
    const flushed = socket.write(frame(piece));
    sent += piece.length;
    await new Promise<void>((resolve) => {
      if (flushed) setTimeout(resolve, 1);
      else {
        socket.once('drain', resolve);
        socket.once('close', resolve);
      }
    });
  }
  await new Promise((resolve) => setTimeout(resolve, 20));
  return failed ?? (sent < total ? `closed after ${sent} bytes` : undefined);
}

describe('createHttpHandler: an early answer lets the client finish writing and read it', () => {
  const max = 1024;
  const head = (extra: string) =>
    `POST / HTTP/1.1\r\nhost: x\r\ncontent-type: application/json\r\n${extra}\r\n`;

  it.each([
    ['an honest Content-Length', `content-length: ${2 * MiB}\r\n`, (p: Buffer) => p],
    ['a lying Content-Length', 'content-length: 999999999\r\n', (p: Buffer) => p],
    [
      'a chunked body',
      'transfer-encoding: chunked\r\n',
      (p: Buffer) => `${p.length.toString(16)}\r\n${p.toString()}\r\n`,
    ],
  ])(
    '%s over the limit: 413 with -32004, no reset while 2 MiB are written, then closed',
    async (_, extra, frame) => {
      const server = echoServer();
      const { port } = await serve(createHttpHandler(server, { maxMessageBytes: max }));
      const socket = await rawConnect(port);
      const response = readResponse(socket, 5000);
      socket.write(head(extra));
      const writeError = await writeBody(socket, 2 * MiB, frame);
      const r = await response;
      expect(writeError).toBeUndefined();
      expect(r.status).toBe(413);
      expect(r.headers.connection).toBe('close');
      expect(JSON.parse(r.body)).toMatchObject({ id: null, error: { code: -32004 } });
      expect(server.texts).toEqual([]);
    },
  );

  it('stops reading after a bounded number of bytes and closes the connection', async () => {
    const { port } = await serve(createHttpHandler(echoServer(), { maxMessageBytes: max }));
    const socket = await rawConnect(port);
    const response = readResponse(socket, 5000);
    socket.write(head('content-length: 999999999\r\n'));
    const writeError = await writeBody(socket, 64 * MiB);
    expect((await response).status).toBe(413);
    // The server gave up reading long before 64 MiB: the writer saw the connection go.
    expect(writeError).toBeDefined();
  });
});

describe('createHttpHandler: a client that aborts mid-body', () => {
  it('releases its request, response and chunks at once, not at the body timeout', async () => {
    const handler = createHttpHandler(echoServer(), { bodyTimeout: 60_000 });
    const { port } = await serve(handler);
    const sockets: Socket[] = [];
    for (let i = 0; i < 20; i++) {
      const socket = await rawConnect(port);
      socket.on('error', () => {});
      socket.write(
        'POST / HTTP/1.1\r\nhost: x\r\ncontent-type: application/json\r\ncontent-length: 1000\r\n\r\n{"jsonrpc"',
      );
      sockets.push(socket);
    }
    await until(() => waitingBodies(handler) === 20);
    for (const socket of sockets) socket.destroy();
    await until(() => waitingBodies(handler) === 0, 2000);
    expect(waitingBodies(handler)).toBe(0);
  });
});
