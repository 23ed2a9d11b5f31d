import { connect } from 'node:net';
import {
  DEFAULT_MAX_CONNECTIONS,
  DEFAULT_MAX_CONNECTIONS_PER_ADDRESS,
} from '@jsonrpc-kit/core/engine';
import { afterEach, describe, expect, it } from 'vitest';
import { createEchoHandler } from '../test/echo-handler.js';
import { closeCode, openRaw, waitFor, withTimeout, wsUrl } from '../test/helpers.js';
import { createWebSocketServer, type WebSocketServerOptions } from './server.js';

const cleanups: (() => unknown)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

async function start(options: Partial<WebSocketServerOptions> = {}) {
  const handler = createEchoHandler();
  const wss = createWebSocketServer(handler, { port: 0, host: '127.0.0.1', ...options });
  cleanups.push(() => wss.close({ timeout: 100 }));
  await wss.ready;
  return { wss, handler, url: wsUrl(wss.port) };
}

/**
 * Writes an upgrade request as raw bytes, with `extra` header lines, and returns the status code
 * of the answer's first line. A 101 socket is kept open (and closed after the test).
 */
function rawUpgrade(port: number, extra: readonly string[] = []): Promise<number> {
  return withTimeout(
    new Promise<number>((resolve, reject) => {
      const socket = connect(port, '127.0.0.1');
      cleanups.push(() => socket.destroy());
      let head = '';
      socket.on('error', reject);
      socket.on('data', (chunk) => {
        head += chunk.toString('latin1');
        const end = head.indexOf('\r\n');
        if (end !== -1) resolve(Number(head.slice(9, 12)));
      });
      socket.write(
        [
          'GET / HTTP/1.1',
          `Host: 127.0.0.1:${port}`,
          'Connection: Upgrade',
          'Upgrade: websocket',
          'Sec-WebSocket-Version: 13',
          'Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==',
          ...extra,
          '',
          '',
        ].join('\r\n'),
      );
    }),
    3000,
    'upgrade answer',
  );
}

describe('origin policy', () => {
  it('by default accepts no Origin and the same origin, and refuses others and null', async () => {
    const { wss } = await start();
    const port = wss.port;
    expect(await rawUpgrade(port)).toBe(101);
    expect(await rawUpgrade(port, [`Origin: http://127.0.0.1:${port}`])).toBe(101);
    expect(await rawUpgrade(port, [`Origin: https://127.0.0.1:${port}`])).toBe(101);
    expect(await rawUpgrade(port, ['Origin: https://evil.example'])).toBe(403);
    expect(await rawUpgrade(port, [`Origin: http://127.0.0.1:${port + 1}`])).toBe(403);
    expect(await rawUpgrade(port, ['Origin: null'])).toBe(403);
    expect(await rawUpgrade(port, ['Origin: file://'])).toBe(403);
  });

  it("accepts any origin with allowedOrigins: '*'", async () => {
    const { wss } = await start({ allowedOrigins: '*' });
    expect(await rawUpgrade(wss.port, ['Origin: https://evil.example'])).toBe(101);
    expect(await rawUpgrade(wss.port, ['Origin: null'])).toBe(101);
  });
});

describe('connection caps', () => {
  it('refuses upgrades past maxConnections with 503 and accepts again once one closes', async () => {
    expect(DEFAULT_MAX_CONNECTIONS).toBe(10_000);
    const { wss, url } = await start({ maxConnections: 2 });
    const a = await openRaw(url);
    const b = await openRaw(url);
    cleanups.push(
      () => a.ws.terminate(),
      () => b.ws.terminate(),
    );
    await waitFor(() => wss.connections.size === 2);
    expect(await rawUpgrade(wss.port)).toBe(503);
    a.ws.close();
    await waitFor(() => wss.connections.size === 1);
    expect(await rawUpgrade(wss.port)).toBe(101);
  });

  it('refuses upgrades past maxConnectionsPerAddress with 503', async () => {
    expect(DEFAULT_MAX_CONNECTIONS_PER_ADDRESS).toBe(1000);
    const { wss } = await start({ maxConnectionsPerAddress: 3 });
    for (let i = 0; i < 3; i++) expect(await rawUpgrade(wss.port)).toBe(101);
    await waitFor(() => wss.connections.size === 3);
    expect(await rawUpgrade(wss.port)).toBe(503);
  });
});

describe('idle timeout', () => {
  it('closes a socket that only answers pings with 1001, and keeps a talking one', async () => {
    const { wss, url } = await start({
      idleTimeout: 150,
      heartbeat: { interval: 20, timeout: 1_000 },
    });
    const idle = await openRaw(url);
    const talking = await openRaw(url);
    cleanups.push(
      () => idle.ws.terminate(),
      () => talking.ws.terminate(),
    );
    let pings = 0;
    idle.ws.on('ping', () => pings++);
    const idleClosed = closeCode(idle.ws);
    // The talking socket sends a call every 50 ms, for longer than the idle timeout.
    for (let i = 0; i < 6; i++) {
      talking.ws.send(`{"jsonrpc":"2.0","method":"echo","params":[${i}],"id":${i}}`);
      expect(JSON.parse(await talking.next()).id).toBe(i);
      await new Promise((r) => setTimeout(r, 50));
    }
    expect(await idleClosed).toBe(1001);
    expect(pings).toBeGreaterThan(0);
    expect(talking.ws.readyState).toBe(1);
    await waitFor(() => wss.connections.size === 1);
  });

  it('keeps a silent socket the server pushes to open: a send is activity too', async () => {
    const { wss, handler, url } = await start({ idleTimeout: 300, heartbeat: false });
    const subscriber = await openRaw(url);
    await waitFor(() => handler.connections.length === 1);
    const silent = await openRaw(url);
    cleanups.push(
      () => subscriber.ws.terminate(),
      () => silent.ws.terminate(),
    );
    const silentClosed = closeCode(silent.ws);
    const pushed = handler.connections[0]!;
    // The server pushes every 100 ms for 1 s; the subscriber never sends a frame.
    for (let i = 0; i < 10; i++) {
      await pushed.notify('tick', [i]);
      await new Promise((r) => setTimeout(r, 100));
    }
    expect(subscriber.ws.readyState).toBe(1);
    expect(subscriber.received).toHaveLength(10);
    expect(JSON.parse(subscriber.received[9]!).params).toEqual([9]);
    // The socket nobody pushes to was reaped meanwhile.
    expect(await silentClosed).toBe(1001);
    await waitFor(() => wss.connections.size === 1);
  });
});
