import type { EventEmitter } from 'node:events';
import type { Transport, TransportContext } from '@jsonrpc-kit/core';
import type { ConnectionLike } from '@jsonrpc-kit/core/engine';
import { afterEach, describe, expect, it } from 'vitest';
import { openRaw, waitFor, withTimeout, wsUrl } from '../test/helpers.js';
import { createWebSocketServer } from './server.js';
import type { SocketTransport } from './socket-transport.js';

interface Quiet extends ConnectionLike {
  readonly context: TransportContext;
}

/** A handler that starts each transport and never looks at anything else. */
function quietHandler(connections: Quiet[], transports: SocketTransport[] = []) {
  return {
    connect(transport: Transport, context: TransportContext = {}): Quiet {
      transports.push(transport as SocketTransport);
      let resolveClosed!: () => void;
      const closed = new Promise<void>((resolve) => {
        resolveClosed = resolve;
      });
      void transport.start({ onMessage() {}, onClose: () => resolveClosed() });
      const connection: Quiet = {
        context,
        closed,
        notify: () => Promise.resolve(),
        request: () => Promise.reject(new Error('not used')),
        close: () => transport.close().then(() => closed),
      };
      connections.push(connection);
      return connection;
    },
  };
}

const cleanups: (() => unknown)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

describe('an idle socket', () => {
  it('costs no AbortController and no timer of its own until it is used', async () => {
    const connections: Quiet[] = [];
    const wss = createWebSocketServer(quietHandler(connections), {
      port: 0,
      host: '127.0.0.1',
    });
    cleanups.push(() => wss.close({ timeout: 100 }));
    await wss.ready;
    const Original = globalThis.AbortController;
    const realSetTimeout = globalThis.setTimeout;
    const realSetInterval = globalThis.setInterval;
    let controllers = 0;
    let timers = 0;
    globalThis.AbortController = class extends Original {
      constructor() {
        super();
        controllers++;
      }
    };
    globalThis.setTimeout = ((...args: Parameters<typeof setTimeout>) => {
      timers++;
      return realSetTimeout(...args);
    }) as typeof setTimeout;
    globalThis.setInterval = ((...args: Parameters<typeof setInterval>) => {
      timers++;
      return realSetInterval(...args);
    }) as typeof setInterval;
    const clients = [];
    try {
      for (let i = 0; i < 20; i++) clients.push(await openRaw(wsUrl(wss.port)));
      await waitFor(() => wss.connections.size === 20);
    } finally {
      globalThis.AbortController = Original;
      globalThis.setTimeout = realSetTimeout;
      globalThis.setInterval = realSetInterval;
      for (const client of clients) cleanups.push(() => client.ws.terminate());
    }
    expect(controllers).toBe(0);
    // One heartbeat timer for the whole server, none per socket.
    expect(timers).toBeLessThanOrEqual(1);
  });

  it('still has a signal, made on first read, that aborts when the socket closes', async () => {
    const connections: Quiet[] = [];
    const wss = createWebSocketServer(quietHandler(connections), {
      port: 0,
      host: '127.0.0.1',
    });
    cleanups.push(() => wss.close({ timeout: 100 }));
    await wss.ready;
    const early = await openRaw(wsUrl(wss.port));
    const late = await openRaw(wsUrl(wss.port));
    await waitFor(() => connections.length === 2);
    const [first, second] = connections as [Quiet, Quiet];
    const signal = first.context.signal!;
    expect(signal.aborted).toBe(false);
    expect(first.context.signal).toBe(signal);
    early.ws.close();
    late.ws.close();
    await Promise.all([first.closed, second.closed]);
    expect(signal.aborted).toBe(true);
    // Read for the first time after the close: aborted already.
    expect(second.context.signal!.aborted).toBe(true);
    expect(second.context.kind).toBe('ws');
    expect(second.context.remoteAddress).toBe('127.0.0.1');
  });

  it('resolves a `closed` first read from the onClose of its owner', async () => {
    let closedRead: Promise<void> | undefined;
    const wss = createWebSocketServer(
      {
        connect(transport: Transport): ConnectionLike {
          void transport.start({
            onMessage() {},
            onClose: () => {
              // Read for the first time while the close is being handled.
              closedRead = (transport as SocketTransport).closed;
            },
          });
          return {
            closed: new Promise<void>(() => {}),
            notify: () => Promise.resolve(),
            request: () => Promise.reject(new Error('not used')),
            close: () => transport.close(),
          };
        },
      },
      { port: 0, host: '127.0.0.1' },
    );
    cleanups.push(() => wss.close({ timeout: 100 }));
    await wss.ready;
    const client = await openRaw(wsUrl(wss.port));
    await waitFor(() => wss.connections.size === 1);
    client.ws.close();
    await waitFor(() => closedRead !== undefined);
    await withTimeout(closedRead!, 1000, 'closed');
  });

  it('has no listener of its own: every socket shares the same functions', async () => {
    const connections: Quiet[] = [];
    const transports: SocketTransport[] = [];
    const wss = createWebSocketServer(quietHandler(connections, transports), {
      port: 0,
      host: '127.0.0.1',
      idleTimeout: 60_000,
    });
    cleanups.push(() => wss.close({ timeout: 100 }));
    await wss.ready;
    const clients = [await openRaw(wsUrl(wss.port)), await openRaw(wsUrl(wss.port))];
    for (const client of clients) cleanups.push(() => client.ws.terminate());
    await waitFor(() => wss.connections.size === 2);
    const [a, b] = transports.map((t) => t.socket as unknown as EventEmitter) as [
      EventEmitter,
      EventEmitter,
    ];
    // Counting objects: a socket adds no closure, no `once` wrapper, no promise for its close.
    for (const event of ['message', 'error', 'close', 'pong']) {
      const mine = a.listeners(event);
      expect(mine.length, event).toBeGreaterThan(0);
      expect(mine, event).toEqual(b.listeners(event));
      expect(a.rawListeners(event), event).toEqual(mine);
    }
    // Still served: a pong marks the socket alive, a close is cleaned up.
    clients[0]!.ws.close();
    await waitFor(() => wss.connections.size === 1);
  });
});
