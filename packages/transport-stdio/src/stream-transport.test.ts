import { connect, createServer, type Server, type Socket } from 'node:net';
import { PassThrough } from 'node:stream';
import type { Transport } from '@jsonrpc-kit/core';
import { afterEach, describe, expect, it } from 'vitest';
import { call, recorder } from '../test/helpers.js';
import type { Framing } from './framing.js';
import { createStreamTransport } from './stream-transport.js';

const servers: Server[] = [];
const sockets: Socket[] = [];

afterEach(async () => {
  for (const s of sockets.splice(0)) s.destroy();
  await Promise.all(servers.splice(0).map((s) => new Promise((r) => s.close(r))));
});

/** A TCP echo server on 127.0.0.1 whose connections speak JSON-RPC through a stream transport. */
async function echoServer(framing: Framing) {
  const serverSides: Transport[] = [];
  const serverRecs: ReturnType<typeof recorder>[] = [];
  const server = createServer((socket) => {
    sockets.push(socket);
    const t = createStreamTransport(socket, socket, { framing });
    serverSides.push(t);
    const rec = recorder();
    serverRecs.push(rec);
    void t.start({
      ...rec,
      onMessage(text) {
        rec.onMessage(text);
        const { id, params } = JSON.parse(text) as { id: number; params: unknown };
        void t.send(JSON.stringify({ jsonrpc: '2.0', id, result: params })).catch(() => undefined);
      },
    });
  });
  servers.push(server);
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const { port } = server.address() as { port: number };
  const dial = async (): Promise<Socket> => {
    const socket = connect(port, '127.0.0.1');
    sockets.push(socket);
    await new Promise((r) => socket.once('connect', r));
    return socket;
  };
  return { server, serverSides, serverRecs, dial };
}

describe('createStreamTransport over TCP', () => {
  for (const framing of ['content-length', 'newline', 'auto'] as const) {
    it(`serves requests with ${framing} framing on the server side`, async () => {
      const { dial, serverRecs } = await echoServer(framing);
      const socket = await dial();
      const t = createStreamTransport(socket, socket, {
        framing: framing === 'auto' ? 'content-length' : framing,
      });
      const rec = recorder();
      await t.start(rec);
      expect((await call(t, rec, 1, 'echo', ['héllo €😀'])).result).toEqual(['héllo €😀']);
      const n = 500;
      const payload = 'ü'.repeat(2000);
      await Promise.all(
        Array.from({ length: n }, (_, i) =>
          t.send(
            JSON.stringify({ jsonrpc: '2.0', id: 10 + i, method: 'echo', params: [i, payload] }),
          ),
        ),
      );
      await rec.next((m) => (JSON.parse(m) as { id: number }).id === 10 + n - 1);
      expect(rec.messages.length).toBe(n + 1);
      expect(rec.errors).toEqual([]);
      // Closing ends the socket: the server side sees the end and closes without error.
      await t.close();
      expect(await serverRecs[0]!.closed()).toBeUndefined();
      expect(rec.closes).toEqual([undefined]);
    });
  }

  it('closes when the peer closes the connection', async () => {
    const { dial, serverSides } = await echoServer('newline');
    const socket = await dial();
    const t = createStreamTransport(socket, socket, { framing: 'newline' });
    const rec = recorder();
    await t.start(rec);
    await call(t, rec, 1, 'echo', [1]);
    await serverSides[0]!.close();
    expect(await rec.closed()).toBeUndefined();
  });

  it('closes with a TransportError when the connection breaks', async () => {
    const { dial } = await echoServer('newline');
    const socket = await dial();
    const t = createStreamTransport(socket, socket, { framing: 'newline' });
    const rec = recorder();
    await t.start(rec);
    socket.destroy(new Error('connection reset'));
    const error = await rec.closed();
    expect(error).toMatchObject({ code: 'TRANSPORT_ERROR' });
    expect(error?.message).toContain('connection reset');
  });

  it('a slow reader makes send() wait instead of buffering without bound', async () => {
    // A server that does not read until told to.
    let serverSocket!: Socket;
    const accepted = new Promise<void>((resolve) => {
      const server = createServer((s) => {
        sockets.push(s);
        serverSocket = s;
        s.pause();
        resolve();
      });
      servers.push(server);
      server.listen(0, '127.0.0.1');
    });
    const server = servers[servers.length - 1]!;
    await new Promise((r) => server.once('listening', r));
    const socket = connect((server.address() as { port: number }).port, '127.0.0.1');
    sockets.push(socket);
    await accepted;
    const t = createStreamTransport(socket, socket, { framing: 'newline' });
    await t.start(recorder());
    const message = JSON.stringify('x'.repeat(256 * 1024));
    let resolved = 0;
    let stuck = false;
    for (let i = 0; i < 400; i++) {
      const settled = await Promise.race([
        t.send(message).then(() => true),
        new Promise<false>((r) => setTimeout(() => r(false), 200)),
      ]);
      if (!settled) {
        stuck = true;
        break;
      }
      resolved++;
    }
    expect(stuck).toBe(true);
    expect(resolved).toBeLessThan(400);
    // What the writer holds stays around one message, not everything sent.
    expect(socket.writableLength).toBeLessThan(2 * message.length + 1024);
    // The reader wakes up: everything arrives.
    let received = 0;
    serverSocket.on('data', (c: Buffer) => {
      received += c.length;
    });
    serverSocket.resume();
    await t.send('[1]');
    expect(received).toBeGreaterThan(0);
    await t.close();
  });
});

describe('createStreamTransport over PassThrough pairs', () => {
  it('links two transports', async () => {
    const aToB = new PassThrough();
    const bToA = new PassThrough();
    const a = createStreamTransport(bToA, aToB);
    const b = createStreamTransport(aToB, bToA);
    const ra = recorder();
    const rb = recorder();
    await a.start(ra);
    await b.start(rb);
    await a.send('{"x":"é"}');
    expect(await rb.next()).toBe('{"x":"é"}');
    await b.send('[1]');
    expect(await ra.next()).toBe('[1]');
    await a.close();
    // b's readable ended: b closes without error; a's readable was destroyed.
    expect(await rb.closed()).toBeUndefined();
    expect(ra.closes).toEqual([undefined]);
  });

  it('closes with a TransportError when a stream fails', async () => {
    const input = new PassThrough();
    const t = createStreamTransport(input, new PassThrough(), { framing: 'newline' });
    const rec = recorder();
    await t.start(rec);
    input.destroy(new Error('broken'));
    const error = await rec.closed();
    expect(error?.message).toContain('broken');
  });

  it('accepts string chunks from a readable with an encoding set', async () => {
    const input = new PassThrough();
    input.setEncoding('utf8');
    const t = createStreamTransport(input, new PassThrough(), { framing: 'newline' });
    const rec = recorder();
    await t.start(rec);
    input.write(Buffer.from('["é"]\n'));
    expect(await rec.next()).toBe('["é"]');
    await t.close();
  });
});
