import { connect, createServer, type Server, type Socket } from 'node:net';
import { PassThrough } from 'node:stream';
import type { Transport } from '@jsonrpc-kit/core';
import { DEFAULT_HIGH_WATER_MARK } from '@jsonrpc-kit/core/engine';
import { afterEach, describe, expect, it } from 'vitest';
import { recorder } from '../test/helpers.js';
import { createStdioTransport } from './stdio-transport.js';
import { createStreamTransport } from './stream-transport.js';

const servers: Server[] = [];
const sockets: Socket[] = [];

afterEach(async () => {
  for (const s of sockets.splice(0)) s.destroy();
  await Promise.all(servers.splice(0).map((s) => new Promise((r) => s.close(r))));
});

/** Each answer carries this much padding, so answers outweigh requests 20 to 1. */
const PAD = 'x'.repeat(1000);

/** Answers every request on `transport` with a 1 KB result; returns how many it answered. */
function answerAll(transport: Transport): { readonly handled: () => number } {
  let handled = 0;
  void transport.start({
    onMessage(text) {
      handled++;
      const { id } = JSON.parse(text) as { id: number };
      void transport.send(`{"jsonrpc":"2.0","id":${id},"result":"${PAD}"}`).catch(() => undefined);
    },
    onClose() {},
  });
  return { handled: () => handled };
}

function requests(from: number, count: number): string {
  let text = '';
  for (let id = from; id < from + count; id++) {
    text += `{"jsonrpc":"2.0","method":"pad","id":${id}}\n`;
  }
  return text;
}

/** Polls `check` every 5 ms, at most `limit` times. */
async function until(check: () => boolean, limit = 1000): Promise<boolean> {
  for (let i = 0; i < limit && !check(); i++) await new Promise((r) => setTimeout(r, 5));
  return check();
}

describe('inbound backpressure', () => {
  it('stops reading a TCP peer that writes requests and never reads, and loses nothing', async () => {
    const n = 20_000;
    let serverSocket: Socket | undefined;
    let served: ReturnType<typeof answerAll> | undefined;
    const server = createServer((socket) => {
      sockets.push(socket);
      serverSocket = socket;
      served = answerAll(createStreamTransport(socket, socket, { framing: 'newline' }));
    });
    servers.push(server);
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    const { port } = server.address() as { port: number };
    const peer = connect(port, '127.0.0.1');
    sockets.push(peer);
    await new Promise((r) => peer.once('connect', r));
    // The peer writes every request and reads nothing.
    peer.pause();
    const sent = requests(0, n);
    peer.write(sent);

    expect(await until(() => serverSocket?.isPaused() === true)).toBe(true);
    // Let what was already read be answered; the server must stay paused.
    await new Promise((r) => setTimeout(r, 100));
    expect(serverSocket!.isPaused()).toBe(true);
    const handled = served!.handled();
    // The server read a part of the requests only, and holds less than the mark plus one read's
    // worth of answers (a 64 KiB read is ~1,500 requests, ~1.5 MB of answers) in user space.
    expect(serverSocket!.bytesRead).toBeLessThan(Buffer.byteLength(sent));
    expect(handled).toBeLessThan(n);
    expect(serverSocket!.writableLength).toBeLessThan(DEFAULT_HIGH_WATER_MARK + 2 * 1024 * 1024);

    // The peer reads at last: every request is answered, in order, and reading resumed.
    let received = 0;
    let tail = '';
    peer.setEncoding('utf8');
    peer.on('data', (chunk: string) => {
      const lines = (tail + chunk).split('\n');
      tail = lines.pop()!;
      received += lines.length;
    });
    peer.resume();
    expect(await until(() => received === n, 4000)).toBe(true);
    expect(served!.handled()).toBe(n);
  });

  it('stops reading stdin while stdout is not read, and resumes once it is', async () => {
    const stdin = new PassThrough();
    const stdout = new PassThrough();
    const served = answerAll(createStdioTransport({ stdin, stdout, framing: 'newline' }));
    const n = 5_000;
    // In reads of 100 requests, as a pipe delivers them.
    for (let i = 0; i < n; i += 100) stdin.write(requests(i, 100));
    expect(await until(() => stdin.isPaused())).toBe(true);
    await new Promise((r) => setTimeout(r, 50));
    expect(served.handled()).toBeLessThan(n);
    expect(stdout.writableLength).toBeLessThan(DEFAULT_HIGH_WATER_MARK + 2 * 1024 * 1024);
    let received = 0;
    stdout.setEncoding('utf8');
    stdout.on('data', (chunk: string) => {
      for (const c of chunk) if (c === '\n') received++;
    });
    expect(await until(() => received === n, 4000)).toBe(true);
  });

  it('closes with a TransportError once more than maxQueuedBytes wait to be written', async () => {
    const input = new PassThrough();
    const output = new PassThrough(); // never read: its buffer never drains
    const transport = createStreamTransport(input, output, {
      framing: 'newline',
      maxQueuedBytes: 64 * 1024,
    });
    const rec = recorder();
    await transport.start(rec);
    let refused = 0;
    for (let i = 0; i < 1000 && rec.closes.length === 0; i++) {
      transport.send(`{"jsonrpc":"2.0","method":"push","params":["${PAD}"]}`).catch(() => {
        refused++;
      });
      await new Promise((r) => setImmediate(r));
    }
    const error = await rec.closed(1000);
    expect(error?.name).toBe('TransportError');
    expect(error?.message).toMatch(/not reading/);
    // Closed after about 64 KiB of 1 KB messages, not after all of them.
    expect(output.writableLength).toBeLessThan(80 * 1024);
    await new Promise((r) => setImmediate(r));
    expect(refused).toBeGreaterThan(0);
  });
});
