import { once } from 'node:events';
import type { AddressInfo, Socket } from 'node:net';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { type WebSocket, WebSocketServer } from 'ws';
import { openRaw, wsUrl } from '../test/helpers.js';
import { createSocketTransport } from './socket-transport.js';

const cleanups: (() => unknown)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

async function pair(perMessageDeflate: boolean) {
  const wss = new WebSocketServer({ port: 0, host: '127.0.0.1', perMessageDeflate });
  await once(wss, 'listening');
  cleanups.push(() => new Promise((r) => wss.close(r)));
  const accepted = new Promise<WebSocket>((resolve) => wss.once('connection', resolve));
  const client = await openRaw(wsUrl((wss.address() as AddressInfo).port), { perMessageDeflate });
  cleanups.push(() => client.ws.terminate());
  const socket = await accepted;
  const transport = createSocketTransport(socket);
  await transport.start({ onMessage() {}, onClose() {} });
  return { client, socket, transport, raw: (socket as unknown as { _socket: Socket })._socket };
}

const bytes = (text: string) => new TextEncoder().encode(text);

/** Texts of 10 B, 300 B (a 16-bit length) and 70,000 B (a 64-bit length, not copied). */
const SIZES = [10, 300, 70_000];

describe('sendBytes: text frames of bytes', () => {
  it('without compression, writes each small frame in one buffer, with a header the peer reads', async () => {
    const { client, transport, raw } = await pair(false);
    const writes = vi.spyOn(raw, 'write');
    const sends = vi.spyOn(Object.getPrototypeOf(transport.socket) as WebSocket, 'send');
    const texts = SIZES.map((size) => `{"a":"${'é'.repeat(Math.floor((size - 8) / 2))}"}`);
    for (const text of texts) {
      const all = bytes(text);
      await transport.sendBytes(all.subarray(0, 7), all.subarray(7));
    }
    await transport.sendBytes(bytes('"whole"'));
    const written = writes.mock.calls.map(([chunk]) => chunk as Buffer);
    const wsSends = sends.mock.calls.length;
    writes.mockRestore();
    sends.mockRestore();
    for (const text of [...texts, '"whole"']) expect(await client.next()).toBe(text);
    // `ws` was not asked to frame anything.
    expect(wsSends).toBe(0);
    // 10 B and 300 B: one write each, header and payload together; 70,000 B: header, head, tail.
    expect(written.map((chunk) => chunk.length)).toEqual([
      2 + bytes(texts[0]!).length,
      4 + bytes(texts[1]!).length,
      10,
      7,
      bytes(texts[2]!).length - 7,
      2 + 7,
    ]);
    expect([...written[0]!.subarray(0, 2)]).toEqual([0x81, bytes(texts[0]!).length]);
    expect([...written[1]!.subarray(0, 2)]).toEqual([0x81, 126]);
    expect(written[1]!.readUInt16BE(2)).toBe(bytes(texts[1]!).length);
    expect(written[2]![1]).toBe(127);
    expect(written[2]!.readUInt32BE(6)).toBe(bytes(texts[2]!).length);
  });

  it('keeps the order of texts and bytes sent in one turn (the turn corked)', async () => {
    const { client, transport } = await pair(false);
    const sends: Promise<void>[] = [];
    for (let i = 0; i < 6; i++) {
      sends.push(i % 2 === 0 ? transport.send(`${i}`) : transport.sendBytes(bytes(`${i}`)));
    }
    await Promise.all(sends);
    const got: string[] = [];
    for (let i = 0; i < 6; i++) got.push(await client.next());
    expect(got).toEqual(['0', '1', '2', '3', '4', '5']);
  });

  it('with compression negotiated, goes through `ws` (joined), still as text frames', async () => {
    const { client, transport, raw } = await pair(true);
    expect(transport.socket.extensions).not.toBe('');
    const sends = vi.spyOn(Object.getPrototypeOf(transport.socket) as WebSocket, 'send');
    await transport.send('"first"');
    await transport.sendBytes(bytes('{"x":'), bytes('"é"}'));
    await transport.sendBytes(bytes('"whole"'));
    const wsSends = sends.mock.calls.length;
    sends.mockRestore();
    expect(wsSends).toBe(3);
    expect([await client.next(), await client.next(), await client.next()]).toEqual([
      '"first"',
      '{"x":"é"}',
      '"whole"',
    ]);
    expect(raw.destroyed).toBe(false);
  });
});
