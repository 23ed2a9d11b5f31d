import type { Socket } from 'node:net';
import { createServer, createSubscriptions, type Subscriptions } from '@jsonrpc-kit/server';
import { afterEach, describe, expect, it } from 'vitest';
import {
  closeAll,
  closedWithin,
  rawConnect,
  rawExchange,
  rawPost,
  serve,
  until,
} from '../test/helpers.js';
import { createMemoryEventStore, type EventStore } from './event-store.js';
import { createSseParser, type SseEvent } from './sse.js';
import {
  DEFAULT_MAX_BUFFERED_BYTES,
  type StreamableHttpHandlerOptions,
} from './streamable-handler.js';
import { createStreamableHttpNodeHandler } from './streamable-node.js';

const handlers: { close(): Promise<void> }[] = [];
afterEach(async () => {
  await Promise.all(handlers.splice(0).map((h) => h.close()));
  await closeAll();
});

const JSON_AND_SSE = 'application/json, text/event-stream';
const init = '{"jsonrpc":"2.0","id":0,"method":"initialize","params":{}}';

interface Fixture {
  readonly port: number;
  readonly subscriptions: Subscriptions;
  /** The server's side of every connection. */
  readonly sockets: Set<Socket>;
}

async function start(options: StreamableHttpHandlerOptions): Promise<Fixture> {
  const server = createServer();
  server.method('initialize', () => ({ protocolVersion: '2025-06-18', capabilities: {} }));
  const subscriptions = createSubscriptions(server);
  subscriptions.subscription('news');
  const handler = createStreamableHttpNodeHandler(server, options);
  handlers.push(handler);
  const { port, server: http } = await serve(handler);
  const sockets = new Set<Socket>();
  http.on('connection', (socket: Socket) => {
    sockets.add(socket);
    socket.once('close', () => sockets.delete(socket));
  });
  return { port, subscriptions, sockets };
}

function post(body: string, headers: Record<string, string> = {}): string {
  return rawPost(body, { 'content-type': 'application/json', accept: JSON_AND_SSE, ...headers });
}

/** A session subscribed to `news`. */
async function subscribed(port: number): Promise<string> {
  const id = (await rawExchange(port, post(init))).headers['mcp-session-id']!;
  const r = await rawExchange(
    port,
    post('{"jsonrpc":"2.0","id":1,"method":"subscribe","params":{"name":"news"}}', {
      'mcp-session-id': id,
    }),
  );
  expect(r.status).toBe(200);
  return id;
}

/** Opens a session's GET stream on a socket that reads its head, then nothing more. */
async function unreadStream(port: number, session: string): Promise<Socket> {
  const socket = await rawConnect(port);
  let head = '';
  const onData = (chunk: Buffer): void => {
    head += chunk.toString('latin1');
    // Stop reading once the head is in: the kernel's buffers fill, then the server's.
    if (head.includes('\r\n\r\n')) {
      socket.off('data', onData);
      socket.pause();
    }
  };
  socket.on('data', onData);
  socket.write(
    `GET / HTTP/1.1\r\nhost: 127.0.0.1\r\naccept: text/event-stream\r\nmcp-session-id: ${session}\r\n\r\n`,
  );
  await until(() => head.includes('\r\n\r\n'));
  expect(head.startsWith('HTTP/1.1 200 OK\r\n')).toBe(true);
  return socket;
}

/** Bytes the server holds for its connections' sockets, not yet taken by the kernel. */
function held(sockets: Set<Socket>): number {
  let bytes = 0;
  for (const socket of sockets) if (!socket.destroyed) bytes += socket.writableLength;
  return bytes;
}

const ITEM = 'x'.repeat(64 * 1024);

/**
 * Publishes 64 KiB items, one per timer turn (a publisher that never waits), `count` of them, and
 * returns the most bytes the server held at once along the way.
 */
async function flood(f: Fixture, count: number): Promise<number> {
  let most = 0;
  for (let i = 0; i < count; i++) {
    f.subscriptions.publish('news', `${i} ${ITEM}`);
    await new Promise((resolve) => setImmediate(resolve));
    most = Math.max(most, held(f.sockets));
  }
  return most;
}

/** The id of the first item's event. */
const FIRST = /\nid: ([^\n]+)\ndata: [^\n]*"item":"0 /;

function events(body: string): SseEvent[] {
  const out: SseEvent[] = [];
  createSseParser((e) => out.push(e)).push(body);
  return out;
}

describe('Streamable HTTP on node:http: a stream nobody reads', () => {
  it('holds at most 1 MiB for it by default', () => {
    expect(DEFAULT_MAX_BUFFERED_BYTES).toBe(1024 * 1024);
  });

  it('holds at most maxBufferedBytes for an unread GET stream, then destroys its connection', async () => {
    const bound = 256 * 1024;
    const f = await start({ maxBufferedBytes: bound, eventStore: false });
    const sessions = [await subscribed(f.port), await subscribed(f.port)];
    const readers = await Promise.all(sessions.map((s) => unreadStream(f.port, s)));
    // 256 items of 64 KiB: 16 MiB to each stream, far past what the kernel's buffers take.
    const most = await flood(f, 256);
    // Per stream: the bound, one event past it and the socket's own high-water mark.
    expect(most).toBeLessThan(sessions.length * (bound + ITEM.length + 64 * 1024 + 1024));
    // Each reader's connection was destroyed, not ended: the server holds nothing for it.
    await until(() => held(f.sockets) === 0);
    // The readers, reading again, find their connections closed.
    for (const reader of readers) {
      reader.resume();
      expect(await closedWithin(reader, 3000)).toBe(true);
    }
  });

  it('with an event store, what the dropped stream did not deliver is resumed with Last-Event-ID', async () => {
    const store: EventStore = createMemoryEventStore({ maxStreamBytes: 64 * 1024 * 1024 });
    const bound = 256 * 1024;
    const f = await start({ maxBufferedBytes: bound, eventStore: store });
    const session = await subscribed(f.port);
    const socket = await rawConnect(f.port);
    let got = Buffer.alloc(0);
    let reading = true;
    socket.on('data', (chunk: Buffer) => {
      if (reading) got = Buffer.concat([got, chunk]);
      // The head and the first event, then no more reading.
      if (reading && FIRST.test(got.toString('latin1'))) {
        reading = false;
        socket.pause();
      }
    });
    socket.write(
      `GET / HTTP/1.1\r\nhost: 127.0.0.1\r\naccept: text/event-stream\r\nmcp-session-id: ${session}\r\n\r\n`,
    );
    await until(() => got.includes('\r\n\r\n'));
    await flood(f, 256);
    await until(() => held(f.sockets) === 0);
    socket.resume();
    expect(await closedWithin(socket, 3000)).toBe(true);
    const first = FIRST.exec(got.toString('latin1'))![1]!;
    const resumed = await rawConnect(f.port);
    let text = '';
    resumed.on('data', (chunk: Buffer) => {
      text += chunk.toString('utf8');
    });
    resumed.write(
      `GET / HTTP/1.1\r\nhost: 127.0.0.1\r\naccept: text/event-stream\r\nmcp-session-id: ${session}\r\nlast-event-id: ${first}\r\n\r\n`,
    );
    await until(() => text.includes('"item":"255 '), 10_000);
    expect(text.startsWith('HTTP/1.1 200 OK\r\n')).toBe(true);
    // The body after the head, its chunk-size lines taken out.
    const body = text
      .slice(text.indexOf('\r\n\r\n') + 4)
      .replace(/^[0-9a-f]+\r\n|\r\n[0-9a-f]+\r\n/g, '');
    const items = events(body).map((e) => JSON.parse(e.data).params.item as string);
    // Everything after the one event read, once each and in order.
    expect(items.map((item) => Number(item.slice(0, item.indexOf(' '))))).toEqual(
      Array.from({ length: 255 }, (_, i) => i + 1),
    );
  });
});
