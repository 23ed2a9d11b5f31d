import { createServer } from '@jsonrpc-kit/server';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { createSseParser, type SseEvent } from './sse.js';
import {
  createStreamableHttpHandler,
  type StreamableHttpHandler,
  type StreamableHttpHandlerOptions,
} from './streamable-handler.js';

// The fetch entry, driven with `Request` objects as a fetch runtime would (Deno, Bun, workers).

const handlers: StreamableHttpHandler[] = [];
afterEach(async () => {
  vi.useRealTimers();
  await Promise.all(handlers.splice(0).map((h) => h.close()));
});

const URL_ = 'http://127.0.0.1/mcp';
const INFO = { remoteAddress: '127.0.0.1', localAddress: '127.0.0.1' };

function start(options: StreamableHttpHandlerOptions = {}): StreamableHttpHandler {
  const server = createServer();
  server.method('initialize', () => ({ protocolVersion: '2025-06-18' }));
  server.method('add', ([a, b]: [number, number]) => a + b);
  server.method('slow', async (params: { progressToken: string }, ctx) => {
    await ctx.peer!.notify('notifications/progress', {
      progressToken: params.progressToken,
      progress: 1,
    });
    return 'done';
  });
  const handler = createStreamableHttpHandler(server, options);
  handlers.push(handler);
  return handler;
}

function post(body: string, headers: Record<string, string> = {}): Request {
  return new Request(URL_, {
    method: 'POST',
    headers: {
      host: '127.0.0.1',
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      ...headers,
    },
    body,
  });
}

function events(body: string): SseEvent[] {
  const out: SseEvent[] = [];
  createSseParser((e) => out.push(e)).push(body);
  return out;
}

describe('createStreamableHttpHandler with fetch Request and Response', () => {
  it('starts a session, answers JSON, streams progress, and ends the session', async () => {
    const handler = start();
    const init = await handler(post('{"jsonrpc":"2.0","id":1,"method":"initialize"}'), INFO);
    expect(init.status).toBe(200);
    expect(init.headers.get('content-type')).toBe('application/json');
    const session = init.headers.get('mcp-session-id')!;
    expect(session).toMatch(/^[A-Za-z0-9_-]{22}$/);
    expect(await init.json()).toEqual({
      jsonrpc: '2.0',
      id: 1,
      result: { protocolVersion: '2025-06-18' },
    });
    expect(handler.sessions).toBe(1);

    const add = await handler(
      post('{"jsonrpc":"2.0","id":2,"method":"add","params":[2,3]}', { 'mcp-session-id': session }),
      INFO,
    );
    expect(await add.text()).toBe('{"jsonrpc":"2.0","id":2,"result":5}');

    const slow = await handler(
      post('{"jsonrpc":"2.0","id":3,"method":"slow","params":{"progressToken":"t"}}', {
        'mcp-session-id': session,
      }),
      INFO,
    );
    expect(slow.headers.get('content-type')).toBe('text/event-stream');
    expect(events(await slow.text()).map((e) => JSON.parse(e.data))).toEqual([
      {
        jsonrpc: '2.0',
        method: 'notifications/progress',
        params: { progressToken: 't', progress: 1 },
      },
      { jsonrpc: '2.0', id: 3, result: 'done' },
    ]);

    const note = await handler(
      post('{"jsonrpc":"2.0","method":"notifications/initialized"}', {
        'mcp-session-id': session,
      }),
      INFO,
    );
    expect(note.status).toBe(202);
    expect(await note.text()).toBe('');

    const ended = await handler(
      new Request(URL_, {
        method: 'DELETE',
        headers: { host: '127.0.0.1', 'mcp-session-id': session },
      }),
      INFO,
    );
    expect(ended.status).toBe(200);
    const gone = await handler(
      post('{"jsonrpc":"2.0","id":4,"method":"add","params":[1,1]}', { 'mcp-session-id': session }),
      INFO,
    );
    expect(gone.status).toBe(404);
  });

  it('answers the policy and the session cap as the node handler does', async () => {
    const handler = start({ sessions: { maxSessions: 1 } });
    const wrongType = await handler(
      new Request(URL_, {
        method: 'POST',
        headers: { host: '127.0.0.1', 'content-type': 'text/plain' },
        body: 'x',
      }),
      INFO,
    );
    expect(wrongType.status).toBe(415);
    const foreign = await handler(
      new Request('http://evil.example/mcp', {
        method: 'POST',
        headers: { 'content-type': 'application/json', host: 'evil.example' },
        body: '{}',
      }),
      INFO,
    );
    expect(foreign.status).toBe(403);
    expect(
      (await handler(post('{"jsonrpc":"2.0","id":1,"method":"initialize"}'), INFO)).status,
    ).toBe(200);
    const full = await handler(post('{"jsonrpc":"2.0","id":1,"method":"initialize"}'), INFO);
    expect(full.status).toBe(503);
    expect(full.headers.get('retry-after')).toBe('5');
    const notJson = await handler(post('{"jsonrpc":'), INFO);
    expect(notJson.status).toBe(400);
    expect((await notJson.json()).error.code).toBe(-32700);
  });
});

describe('createStreamableHttpHandler: idle sessions, whatever the clock reads', () => {
  it('sweeps a full table the first time it is full, then makes room for a new session', async () => {
    // Only `Date` is faked, to a time before the handler's module loaded: the sweep must not
    // depend on how far the clock is from that.
    vi.useFakeTimers({ now: 0, toFake: ['Date'] });
    const handler = start({ sessions: { maxSessions: 1, idleTimeout: 50 } });
    const init = () => handler(post('{"jsonrpc":"2.0","id":1,"method":"initialize"}'), INFO);
    expect((await init()).status).toBe(200);
    vi.setSystemTime(100);
    // The first session has been idle past its timeout: closed to make room.
    expect((await init()).status).toBe(200);
    expect(handler.sessions).toBe(1);
    // Swept at most once a second: a session idle past its timeout since then waits for the next.
    vi.setSystemTime(200);
    expect((await init()).status).toBe(503);
    vi.setSystemTime(1_200);
    expect((await init()).status).toBe(200);
  });
});
