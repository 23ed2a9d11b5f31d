import { connect } from 'node:net';
import { mcpProfile } from '@jsonrpc-kit/core';
import { createServer, createSubscriptions, type Subscriptions } from '@jsonrpc-kit/server';
import { afterEach, describe, expect, it } from 'vitest';
import {
  closeAll,
  openGetStream,
  type RawResponse,
  rawExchange,
  rawPost,
  readResponse,
  serve,
  until,
} from '../test/helpers.js';
import { createMemorySessionStore } from './session-store.js';
import { createSseParser, type SseEvent } from './sse.js';
import {
  DEFAULT_MAX_SESSIONS,
  DEFAULT_MAX_SESSIONS_PER_CLIENT,
  SESSIONS_FULL_RETRY_AFTER,
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

async function start(
  options: StreamableHttpHandlerOptions = {},
): Promise<{ port: number; subscriptions: Subscriptions }> {
  const server = createServer();
  server.method('initialize', () => ({ protocolVersion: '2025-06-18', capabilities: {} }));
  server.method('wait', async (params: { ms: number; say: string }) => {
    await new Promise((resolve) => setTimeout(resolve, params.ms));
    return params.say;
  });
  server.method('later', (_params: unknown, ctx) => {
    setTimeout(() => void ctx.peer!.notify('pushed', { n: 1 }).catch(() => {}), 20);
    return 'ok';
  });
  const subscriptions = createSubscriptions(server);
  subscriptions.subscription('news');
  const handler = createStreamableHttpNodeHandler(server, options);
  handlers.push(handler);
  const { port } = await serve(handler);
  return { port, subscriptions };
}

function post(body: string, headers: Record<string, string> = {}): string {
  return rawPost(body, { 'content-type': 'application/json', accept: JSON_AND_SSE, ...headers });
}

function events(body: string): SseEvent[] {
  const out: SseEvent[] = [];
  createSseParser((e) => out.push(e)).push(body);
  return out;
}

describe('Streamable HTTP handler on raw bytes: the session cap', () => {
  it('is on by default', () => {
    expect(DEFAULT_MAX_SESSIONS).toBe(10_000);
  });

  it('answers 503 with Retry-After when full, keeps the open sessions, and has room after one ends', async () => {
    const { port } = await start({ sessions: { maxSessions: 2 } });
    const first = await rawExchange(port, post(init));
    const second = await rawExchange(port, post(init));
    expect([first.status, second.status]).toEqual([200, 200]);

    const refused = await rawExchange(port, post(init));
    expect(refused.head.startsWith('HTTP/1.1 503 Service Unavailable\r\n')).toBe(true);
    expect(refused.headers['retry-after']).toBe(String(SESSIONS_FULL_RETRY_AFTER));
    expect(refused.headers['mcp-session-id']).toBeUndefined();
    expect(JSON.parse(refused.body)).toEqual({
      jsonrpc: '2.0',
      id: null,
      error: { code: -32000, message: 'Service Unavailable: too many sessions' },
    });

    // The sessions already open keep working.
    const call = await rawExchange(
      port,
      post('{"jsonrpc":"2.0","id":1,"method":"wait","params":{"ms":0,"say":"still here"}}', {
        'mcp-session-id': first.headers['mcp-session-id']!,
      }),
    );
    expect(JSON.parse(call.body)).toEqual({ jsonrpc: '2.0', id: 1, result: 'still here' });

    const ended = await rawExchange(
      port,
      `DELETE / HTTP/1.1\r\nhost: 127.0.0.1\r\nmcp-session-id: ${second.headers['mcp-session-id']}\r\ncontent-length: 0\r\n\r\n`,
    );
    expect(ended.status).toBe(200);
    expect((await rawExchange(port, post(init))).status).toBe(200);
  });

  it('when full, closes sessions past their idle timeout to make room', async () => {
    const { port } = await start({ sessions: { maxSessions: 1, idleTimeout: 50 } });
    expect((await rawExchange(port, post(init))).status).toBe(200);
    expect((await rawExchange(port, post(init))).status).toBe(503);
    await new Promise((resolve) => setTimeout(resolve, 1_100));
    expect((await rawExchange(port, post(init))).status).toBe(200);
  });

  it('with a shared session store counts the sessions of this process: continuing one here when full is refused', async () => {
    const store = createMemorySessionStore();
    const a = await start({ sessions: { maxSessions: 1, store } });
    const b = await start({ sessions: { maxSessions: 1, store } });
    const onA = await rawExchange(a.port, post(init));
    const onB = await rawExchange(b.port, post(init));
    expect([onA.status, onB.status]).toEqual([200, 200]);

    const call = (session: string) =>
      post('{"jsonrpc":"2.0","id":1,"method":"wait","params":{"ms":0,"say":"here"}}', {
        'mcp-session-id': session,
      });
    // A holds one session (its cap), so B's session cannot be continued there.
    const refused = await rawExchange(a.port, call(onB.headers['mcp-session-id']!));
    expect(refused.head.startsWith('HTTP/1.1 503 Service Unavailable\r\n')).toBe(true);
    expect(refused.headers['retry-after']).toBe(String(SESSIONS_FULL_RETRY_AFTER));
    expect(JSON.parse(refused.body)).toEqual({
      jsonrpc: '2.0',
      id: null,
      error: { code: -32000, message: 'Service Unavailable: too many sessions' },
    });
    // Each process still serves its own; the store's two sessions do not count against either.
    const own = await rawExchange(b.port, call(onB.headers['mcp-session-id']!));
    expect(JSON.parse(own.body)).toEqual({ jsonrpc: '2.0', id: 1, result: 'here' });

    // Once A's session ends, B's session continues on A.
    const ended = await rawExchange(
      a.port,
      `DELETE / HTTP/1.1\r\nhost: 127.0.0.1\r\nmcp-session-id: ${onA.headers['mcp-session-id']}\r\ncontent-length: 0\r\n\r\n`,
    );
    expect(ended.status).toBe(200);
    const continued = await rawExchange(a.port, call(onB.headers['mcp-session-id']!));
    expect(JSON.parse(continued.body)).toEqual({ jsonrpc: '2.0', id: 1, result: 'here' });
  });

  it('holds under concurrent starts while a shared store creates their records', async () => {
    const shared = createMemorySessionStore();
    // A store that takes a while to create a record: every start waits in between.
    const store: typeof shared = {
      ...shared,
      create: async (...args) => {
        await new Promise((resolve) => setTimeout(resolve, 50));
        return shared.create(...args);
      },
    };
    const { port } = await start({ sessions: { maxSessions: 2, store } });
    const answers = await Promise.all(
      Array.from({ length: 5 }, () => rawExchange(port, post(init))),
    );
    expect(answers.map((a) => a.status).sort()).toEqual([200, 200, 503, 503, 503]);
    // The two sessions opened work; the refused starts left no session behind.
    for (const opened of answers.filter((a) => a.status === 200)) {
      const call = await rawExchange(
        port,
        post('{"jsonrpc":"2.0","id":1,"method":"wait","params":{"ms":0,"say":"ok"}}', {
          'mcp-session-id': opened.headers['mcp-session-id']!,
        }),
      );
      expect(JSON.parse(call.body)).toEqual({ jsonrpc: '2.0', id: 1, result: 'ok' });
    }
  });

  it('refuses a bound below 1', () => {
    const server = createServer();
    expect(() => createStreamableHttpNodeHandler(server, { sessions: { maxSessions: 0 } })).toThrow(
      RangeError,
    );
  });
});

/** Sends raw bytes from a given local address (any of 127.0.0.0/8 reaches 127.0.0.1 on Linux). */
function exchangeFrom(port: number, localAddress: string, raw: string): Promise<RawResponse> {
  return new Promise((resolve, reject) => {
    const socket = connect({ port, host: '127.0.0.1', localAddress }, () => {
      readResponse(socket).then(
        (r) => {
          socket.destroy();
          resolve(r);
        },
        (error: unknown) => {
          socket.destroy();
          reject(error);
        },
      );
      socket.write(raw);
    });
    socket.on('error', reject);
  });
}

describe('Streamable HTTP handler on raw bytes: the share of one client', () => {
  it('is 1000 sessions by default, a tenth of the table', () => {
    expect(DEFAULT_MAX_SESSIONS_PER_CLIENT).toBe(1000);
    expect(DEFAULT_MAX_SESSIONS_PER_CLIENT).toBe(DEFAULT_MAX_SESSIONS / 10);
  });

  it('answers 503 with Retry-After to one address past its share, while another address starts sessions', async () => {
    const { port } = await start({ sessions: { maxSessions: 100, maxSessionsPerClient: 3 } });
    const flood = [];
    for (let i = 0; i < 6; i++)
      flood.push((await exchangeFrom(port, '127.0.0.1', post(init))).status);
    expect(flood).toEqual([200, 200, 200, 503, 503, 503]);
    const refused = await exchangeFrom(port, '127.0.0.1', post(init));
    expect(refused.headers['retry-after']).toBe(String(SESSIONS_FULL_RETRY_AFTER));
    expect(refused.headers['mcp-session-id']).toBeUndefined();
    expect(JSON.parse(refused.body)).toEqual({
      jsonrpc: '2.0',
      id: null,
      error: { code: -32000, message: 'Service Unavailable: too many sessions from this client' },
    });
    // Another address (the default key) still gets its sessions.
    const other = await exchangeFrom(port, '127.0.0.2', post(init));
    expect(other.status).toBe(200);
    expect(other.headers['mcp-session-id']).toBeDefined();
  });

  it('gives a slot back when a session ends, and keys on the clientKey given', async () => {
    const { port } = await start({
      sessions: {
        maxSessionsPerClient: 1,
        clientKey: (ctx) => ctx.headers?.['x-client'] as string | undefined,
      },
    });
    const a = await rawExchange(port, post(init, { 'x-client': 'a' }));
    expect(a.status).toBe(200);
    expect((await rawExchange(port, post(init, { 'x-client': 'a' }))).status).toBe(503);
    expect((await rawExchange(port, post(init, { 'x-client': 'b' }))).status).toBe(200);
    // No key: counted for no client, bounded by maxSessions only.
    expect((await rawExchange(port, post(init))).status).toBe(200);
    expect((await rawExchange(port, post(init))).status).toBe(200);
    const ended = await rawExchange(
      port,
      `DELETE / HTTP/1.1\r\nhost: 127.0.0.1\r\nmcp-session-id: ${a.headers['mcp-session-id']}\r\ncontent-length: 0\r\n\r\n`,
    );
    expect(ended.status).toBe(200);
    expect((await rawExchange(port, post(init, { 'x-client': 'a' }))).status).toBe(200);
  });

  it('counts a session another process started against the client continuing it here', async () => {
    const store = createMemorySessionStore();
    const a = await start({ sessions: { store, maxSessionsPerClient: 1 } });
    const b = await start({ sessions: { store, maxSessionsPerClient: 1 } });
    const onA = await rawExchange(a.port, post(init));
    const onB = await rawExchange(b.port, post(init));
    const call = post('{"jsonrpc":"2.0","id":1,"method":"wait","params":{"ms":0,"say":"here"}}', {
      'mcp-session-id': onB.headers['mcp-session-id']!,
    });
    expect(onA.status).toBe(200);
    // 127.0.0.1 holds its one session on A: B's session is not continued there for it.
    expect((await rawExchange(a.port, call)).status).toBe(503);
    expect((await rawExchange(b.port, call)).status).toBe(200);
  });

  it('refuses a share below 1', () => {
    const server = createServer();
    expect(() =>
      createStreamableHttpNodeHandler(server, { sessions: { maxSessionsPerClient: 0 } }),
    ).toThrow(RangeError);
  });
});

describe('Streamable HTTP handler on raw bytes: ids beyond 2^53', () => {
  it('answers 9007199254740993 on its own stream with the same digits', async () => {
    const { port } = await start({ responseMode: 'sse' });
    const id = (await rawExchange(port, post(init))).headers['mcp-session-id']!;
    // Two requests whose ids are one apart beyond 2^53 (the same JavaScript number): each answer
    // must come back on the stream of the POST that asked, with the id's digits as sent.
    const slow = rawExchange(
      port,
      post(
        '{"jsonrpc":"2.0","id":9007199254740993,"method":"wait","params":{"ms":80,"say":"odd"}}',
        { 'mcp-session-id': id },
      ),
    );
    const fast = rawExchange(
      port,
      post(
        '{"jsonrpc":"2.0","id":9007199254740992,"method":"wait","params":{"ms":10,"say":"even"}}',
        { 'mcp-session-id': id },
      ),
    );
    const [a, b] = await Promise.all([slow, fast]);
    expect(events(a.body).map((e) => e.data)).toEqual([
      '{"jsonrpc":"2.0","id":9007199254740993,"result":"odd"}',
    ]);
    expect(events(b.body).map((e) => e.data)).toEqual([
      '{"jsonrpc":"2.0","id":9007199254740992,"result":"even"}',
    ]);
  });

  it('answers JSON POSTs with ids one apart beyond 2^53 each with its own answer', async () => {
    const { port } = await start({ responseMode: 'json' });
    const id = (await rawExchange(port, post(init))).headers['mcp-session-id']!;
    const [a, b] = await Promise.all([
      rawExchange(
        port,
        post(
          '[{"jsonrpc":"2.0","id":9007199254740993,"method":"wait","params":{"ms":80,"say":"odd"}}]',
          { 'mcp-session-id': id },
        ),
      ),
      rawExchange(
        port,
        post(
          '{"jsonrpc":"2.0","id":9007199254740992,"method":"wait","params":{"ms":10,"say":"even"}}',
          { 'mcp-session-id': id },
        ),
      ),
    ]);
    expect(a.body).toBe('[{"jsonrpc":"2.0","id":9007199254740993,"result":"odd"}]');
    expect(b.body).toBe('{"jsonrpc":"2.0","id":9007199254740992,"result":"even"}');
  });
});

describe('Streamable HTTP handler on raw bytes: a cancelled id beyond 2^53', () => {
  it('ends the stream of the request it names (MCP answers no cancelled request)', async () => {
    const server = createServer({ profile: mcpProfile });
    server.method('initialize', () => ({ protocolVersion: '2025-06-18' }));
    server.method('hang', (_params: unknown, ctx) => {
      return new Promise((_resolve, reject) => {
        ctx.signal.addEventListener('abort', () => reject(new Error('cancelled')));
      });
    });
    const handler = createStreamableHttpNodeHandler(server, { responseMode: 'sse' });
    handlers.push(handler);
    const { port } = await serve(handler);
    const id = (await rawExchange(port, post(init))).headers['mcp-session-id']!;
    const hanging = rawExchange(
      port,
      post('{"jsonrpc":"2.0","id":9007199254740993,"method":"hang"}', { 'mcp-session-id': id }),
    );
    await new Promise((resolve) => setTimeout(resolve, 50));
    const cancel = await rawExchange(
      port,
      post(
        '{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":9007199254740993}}',
        { 'mcp-session-id': id },
      ),
    );
    expect(cancel.status).toBe(202);
    const ended = await hanging;
    expect(ended.status).toBe(200);
    expect(events(ended.body)).toEqual([]);
  });
});

describe('Streamable HTTP handler on raw bytes: a batch answered on an event stream', () => {
  it('sends each answer as its own event with the id digits as sent', async () => {
    const { port } = await start({ responseMode: 'sse' });
    const id = (await rawExchange(port, post(init))).headers['mcp-session-id']!;
    const r = await rawExchange(
      port,
      post(
        '[{"jsonrpc":"2.0","id":9007199254740993,"method":"wait","params":{"ms":1,"say":"a"}},{"jsonrpc":"2.0","id":2,"method":"wait","params":{"ms":1,"say":"b"}}]',
        { 'mcp-session-id': id },
      ),
    );
    expect(events(r.body).map((e) => e.data)).toEqual([
      '{"jsonrpc":"2.0","id":9007199254740993,"result":"a"}',
      '{"jsonrpc":"2.0","id":2,"result":"b"}',
    ]);
  });
});

describe('Streamable HTTP handler on raw bytes: subscription items', () => {
  it('go on the GET stream, not on the stream of a request that is running', async () => {
    const { port, subscriptions } = await start({ responseMode: 'sse' });
    const id = (await rawExchange(port, post(init))).headers['mcp-session-id']!;
    const subscribed = await rawExchange(
      port,
      post('{"jsonrpc":"2.0","id":1,"method":"subscribe","params":{"name":"news"}}', {
        'mcp-session-id': id,
      }),
    );
    const sub = JSON.parse(events(subscribed.body)[0]!.data).result as string;
    // Published before any GET stream: kept for it.
    subscriptions.publish('news', 'early');
    const running = rawExchange(
      port,
      post('{"jsonrpc":"2.0","id":2,"method":"wait","params":{"ms":100,"say":"done"}}', {
        'mcp-session-id': id,
      }),
    );
    const stream = await openGetStream(port, id);
    await until(() => stream.text().includes('early'));
    subscriptions.publish('news', 'late');
    await until(() => stream.text().includes('late'));
    const answer = await running;
    expect(events(answer.body).map((e) => e.data)).toEqual([
      '{"jsonrpc":"2.0","id":2,"result":"done"}',
    ]);
    // The body after the head, its chunk-size lines taken out.
    const got = stream.text();
    const body = got.slice(got.indexOf('\r\n\r\n') + 4);
    const items = events(body.replace(/^[0-9a-f]+\r\n|\r\n[0-9a-f]+\r\n/g, ''));
    expect(items.map((e) => JSON.parse(e.data))).toEqual([
      { jsonrpc: '2.0', method: 'subscription', params: { subscription: sub, item: 'early' } },
      { jsonrpc: '2.0', method: 'subscription', params: { subscription: sub, item: 'late' } },
    ]);
  });
});

describe('Streamable HTTP handler on raw bytes: before the GET stream first opens', () => {
  it('keeps subscription items for it and drops other notifications, as MCP allows', async () => {
    const { port, subscriptions } = await start();
    const id = (await rawExchange(port, post(init))).headers['mcp-session-id']!;
    const headers = { 'mcp-session-id': id };
    await rawExchange(
      port,
      post('{"jsonrpc":"2.0","id":1,"method":"subscribe","params":{"name":"news"}}', headers),
    );
    const later = await rawExchange(
      port,
      post('{"jsonrpc":"2.0","id":2,"method":"later"}', headers),
    );
    expect(JSON.parse(later.body)).toEqual({ jsonrpc: '2.0', id: 2, result: 'ok' });
    subscriptions.publish('news', 'kept');
    // The server's own notification goes out with no request in flight and no stream open.
    await new Promise((resolve) => setTimeout(resolve, 60));
    const stream = await openGetStream(port, id);
    await until(() => stream.text().includes('kept'));
    subscriptions.publish('news', 'live');
    await until(() => stream.text().includes('live'));
    expect(stream.text()).not.toContain('pushed');
  });
});
