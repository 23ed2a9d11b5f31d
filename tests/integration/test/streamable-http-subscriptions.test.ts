/**
 * Subscriptions over Streamable HTTP: the kit's client over `createStreamableHttpTransport`
 * against `createStreamableHttpNodeHandler` on a real node:http server. Items go out on the
 * session's GET stream, which the client holds open only while it has a live subscription; a
 * dropped stream resumes with `Last-Event-ID`, and a session the server no longer knows (404) is
 * replaced by a new one with the subscription re-established.
 */
import {
  createServer as createHttpServer,
  type IncomingMessage,
  type ServerResponse,
} from 'node:http';
import type { AddressInfo } from 'node:net';
import { createClient } from '@jsonrpc-kit/client';
import { createServer, createSubscriptions, type Subscriptions } from '@jsonrpc-kit/server';
import {
  createStreamableHttpNodeHandler,
  createStreamableHttpTransport,
} from '@jsonrpc-kit/transport-http/node';
import { afterEach, describe, expect, it } from 'vitest';

const cleanups: (() => unknown)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

async function until(what: string, condition: () => boolean, timeout = 5_000): Promise<void> {
  const deadline = Date.now() + timeout;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
}

interface Fixture {
  readonly url: string;
  readonly subscriptions: Subscriptions;
  /** Publishes the next number to every `numbers` subscriber. */
  publish(): number;
  /** The GET requests seen, with their `Last-Event-ID` and their response. */
  readonly gets: { lastEventId: string | undefined; res: ServerResponse }[];
  /** Status codes answered, by method. */
  readonly statuses: string[];
}

async function start(startMethod: string | null = null): Promise<Fixture> {
  const server = createServer();
  const subscriptions = createSubscriptions(server);
  subscriptions.subscription('numbers');
  server.method('ping', () => 'pong');
  server.method('initialize', () => ({ protocolVersion: '2025-06-18' }));
  // `null`: any first POST starts a session, so the kit's client needs no `initialize`.
  const handler = createStreamableHttpNodeHandler(server, { sessions: { startMethod } });
  const gets: Fixture['gets'] = [];
  const statuses: string[] = [];
  const http = createHttpServer((req: IncomingMessage, res: ServerResponse) => {
    if (req.method === 'GET') {
      const last = req.headers['last-event-id'];
      gets.push({ lastEventId: typeof last === 'string' ? last : undefined, res });
    }
    res.once('finish', () => statuses.push(`${req.method} ${res.statusCode}`));
    handler(req, res);
  });
  await new Promise<void>((resolve) => http.listen(0, '127.0.0.1', resolve));
  cleanups.push(
    () =>
      new Promise<void>((resolve) => {
        http.closeAllConnections();
        http.close(() => resolve());
      }),
  );
  cleanups.push(() => handler.close());
  let n = 0;
  return {
    url: `http://127.0.0.1:${(http.address() as AddressInfo).port}/rpc`,
    subscriptions,
    publish: () => {
      subscriptions.publish('numbers', ++n);
      return n;
    },
    gets,
    statuses,
  };
}

/** Publishes every 2 ms until stopped. */
function pace(fixture: Fixture): { stop(): number } {
  let last = 0;
  const timer = setInterval(() => {
    last = fixture.publish();
  }, 2);
  cleanups.push(() => clearInterval(timer));
  return {
    stop() {
      clearInterval(timer);
      return last;
    },
  };
}

describe('subscriptions over Streamable HTTP', () => {
  it('subscribe opens the GET stream, items arrive on it, unsubscribe leaves nothing behind', async () => {
    const fixture = await start();
    const client = createClient(createStreamableHttpTransport({ url: fixture.url }));
    cleanups.push(() => client.close());
    expect(await client.request('ping')).toBe('pong');
    expect(fixture.gets).toHaveLength(0);

    const items: number[] = [];
    const sub = client.subscribe<number>('numbers', undefined, { onItem: (n) => items.push(n) });
    await sub.ready;
    await until('the GET stream', () => fixture.gets.length === 1);
    expect(fixture.subscriptions.count('numbers')).toBe(1);
    // Published before and after the GET stream is seen: none is lost.
    for (let i = 0; i < 5; i++) fixture.publish();
    await until('five items', () => items.length === 5);
    expect(items).toEqual([1, 2, 3, 4, 5]);

    await sub.unsubscribe();
    expect(fixture.subscriptions.count('numbers')).toBe(0);
    // The last subscription ended: the client closes its GET stream.
    await until('the GET stream to close', () => fixture.gets[0]!.res.closed);
    expect(await client.request('ping')).toBe('pong');
    expect(fixture.gets).toHaveLength(1);
  });

  it('a dropped GET stream resumes with Last-Event-ID, without loss or duplicate', async () => {
    const fixture = await start();
    // The reconnection takes a while (as over a real network): items published meanwhile must
    // come from the event store.
    let opened = 0;
    const slowReconnect = async (input: string, init: RequestInit): Promise<Response> => {
      if (init.method === 'GET' && opened++ > 0) {
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
      return fetch(input, init);
    };
    const client = createClient(
      createStreamableHttpTransport({
        url: fixture.url,
        fetch: slowReconnect,
        reconnect: { delay: 10 },
      }),
    );
    cleanups.push(() => client.close());
    const items: number[] = [];
    const sub = client.subscribe<number>('numbers', undefined, { onItem: (n) => items.push(n) });
    await sub.ready;
    await until('the GET stream', () => fixture.gets.length === 1);
    const pacer = pace(fixture);
    await until('ten items', () => items.length >= 10);
    // The connection under the stream dies (no clean end): the client must come back.
    fixture.gets[0]!.res.socket?.destroy();
    await until('the GET stream to reconnect', () => fixture.gets.length === 2);
    expect(fixture.gets[1]!.lastEventId).toMatch(/_\d+$/);
    const resumedAt = items.length;
    await until('ten more items', () => items.length >= resumedAt + 10);
    const last = pacer.stop();
    await until(`every item up to ${last}`, () => items.at(-1) === last);
    expect(items).toEqual(Array.from({ length: last }, (_, i) => i + 1));
    await sub.unsubscribe();
    expect(fixture.subscriptions.count('numbers')).toBe(0);
  });

  it('a session the server ended (404) is replaced and the subscription re-established', async () => {
    const fixture = await start();
    const transport = createStreamableHttpTransport({
      url: fixture.url,
      reconnect: { delay: 10 },
    });
    const client = createClient(transport);
    cleanups.push(() => client.close());
    const items: number[] = [];
    const resubscribed: string[] = [];
    const sub = client.subscribe<number>('numbers', undefined, {
      onItem: (n) => items.push(n),
      onResubscribed: (id) => resubscribed.push(id),
    });
    const first = await sub.ready;
    const firstSession = transport.sessionId;
    await until('the GET stream', () => fixture.gets.length === 1);
    fixture.publish();
    await until('the first item', () => items.length === 1);

    // The server forgets the session (as on idle expiry): it ends it.
    const ended = await fetch(fixture.url, {
      method: 'DELETE',
      headers: { 'mcp-session-id': firstSession! },
    });
    expect(ended.status).toBe(200);
    await until('the subscription re-established', () => resubscribed.length === 1);
    expect(fixture.statuses).toContain('GET 404');
    expect(transport.sessionId).not.toBe(firstSession);
    expect(resubscribed[0]).not.toBe(first);
    expect(sub.id).toBe(resubscribed[0]);
    expect(fixture.subscriptions.count('numbers')).toBe(1);

    await until('the new GET stream', () => fixture.gets.length >= 3);
    fixture.publish();
    await until('the item after the new session', () => items.length === 2);
    expect(items).toEqual([1, 2]);
    await sub.unsubscribe();
    expect(fixture.subscriptions.count('numbers')).toBe(0);
  });

  it('a session that needs initialize: onSessionExpired initializes again, then the client resubscribes', async () => {
    const fixture = await start('initialize');
    let initializations = 0;
    const initialize = async (): Promise<void> => {
      initializations++;
      // Some work first (fresh credentials, say): the resubscribe must wait for all of it.
      await new Promise((resolve) => setTimeout(resolve, 20));
      await client.request('initialize', { protocolVersion: '2025-06-18' });
    };
    const transport = createStreamableHttpTransport({
      url: fixture.url,
      reconnect: { delay: 10 },
      onSessionExpired: initialize,
    });
    const client = createClient(transport);
    cleanups.push(() => client.close());
    await initialize();
    const items: number[] = [];
    const resubscribed: string[] = [];
    const sub = client.subscribe<number>('numbers', undefined, {
      onItem: (n) => items.push(n),
      onResubscribed: (id) => resubscribed.push(id),
    });
    await sub.ready;
    const firstSession = transport.sessionId!;
    await until('the GET stream', () => fixture.gets.length === 1);

    await fetch(fixture.url, { method: 'DELETE', headers: { 'mcp-session-id': firstSession } });
    await until('the subscription re-established', () => resubscribed.length === 1);
    expect(initializations).toBe(2);
    expect(transport.sessionId).not.toBe(firstSession);
    // Nothing was refused for want of a session: the resubscribe waited for the initialize.
    expect(fixture.statuses.filter((s) => s.startsWith('POST 4'))).toEqual([]);
    await until('the new GET stream', () => fixture.gets.length >= 3);
    fixture.publish();
    await until('an item in the new session', () => items.length === 1);
    await sub.unsubscribe();
    expect(fixture.subscriptions.count('numbers')).toBe(0);
  });
});
