import { createServer } from '@jsonrpc-kit/server';
import { afterEach, describe, expect, it } from 'vitest';
import { closeAll, rawConnect, rawExchange, rawPost, serve, until } from '../test/helpers.js';
import { HttpError } from './http-error.js';
import { createMemorySessionStore } from './session-store.js';
import type { StreamableHttpHandlerOptions } from './streamable-handler.js';
import { createStreamableHttpNodeHandler } from './streamable-node.js';

const handlers: { close(): Promise<void> }[] = [];
afterEach(async () => {
  await Promise.all(handlers.splice(0).map((h) => h.close()));
  await closeAll();
});

const init = '{"jsonrpc":"2.0","id":0,"method":"initialize","params":{}}';
const whoami = '{"jsonrpc":"2.0","id":1,"method":"whoami"}';
const TOKENS: Record<string, { sub: string; scope: string }> = {
  'alice-token': { sub: 'alice', scope: 'read' },
  'alice-other-token': { sub: 'alice', scope: 'write' },
  'bob-token': { sub: 'bob', scope: 'read' },
};

/** A server whose `whoami` answers the auth its session's calls see. */
async function start(options: StreamableHttpHandlerOptions = {}): Promise<number> {
  const server = createServer();
  server.method('initialize', () => ({ protocolVersion: '2025-06-18', capabilities: {} }));
  server.method('whoami', (_params: unknown, ctx) => ctx.transport.auth);
  const handler = createStreamableHttpNodeHandler(server, {
    authenticate: (ctx) => {
      const token = /^Bearer (.+)$/.exec(String(ctx.headers?.authorization ?? ''))?.[1];
      const auth = token === undefined ? undefined : TOKENS[token];
      if (auth === undefined) throw new HttpError(401, 'Unauthorized');
      return auth;
    },
    ...options,
  });
  handlers.push(handler);
  return (await serve(handler)).port;
}

function post(body: string, token: string, session?: string): string {
  return rawPost(body, {
    'content-type': 'application/json',
    accept: 'application/json, text/event-stream',
    authorization: `Bearer ${token}`,
    ...(session === undefined ? {} : { 'mcp-session-id': session }),
  });
}

function get(token: string, session: string): string {
  return `GET / HTTP/1.1\r\nhost: 127.0.0.1\r\naccept: text/event-stream\r\nauthorization: Bearer ${token}\r\nmcp-session-id: ${session}\r\n\r\n`;
}

function del(token: string, session: string): string {
  return `DELETE / HTTP/1.1\r\nhost: 127.0.0.1\r\nauthorization: Bearer ${token}\r\nmcp-session-id: ${session}\r\ncontent-length: 0\r\n\r\n`;
}

async function open(port: number, token: string): Promise<string> {
  const r = await rawExchange(port, post(init, token));
  expect(r.status).toBe(200);
  return r.headers['mcp-session-id']!;
}

const NOT_FOUND = {
  jsonrpc: '2.0',
  id: null,
  error: { code: -32001, message: 'Session not found' },
};

describe('Streamable HTTP: a session is bound to who opened it', () => {
  it("refuses Bob's POST, GET and DELETE on Alice's session as unknown (404), and Alice goes on", async () => {
    const port = await start();
    const alice = await open(port, 'alice-token');
    const asBob = await rawExchange(port, post(whoami, 'bob-token', alice));
    expect(asBob.status).toBe(404);
    expect(JSON.parse(asBob.body)).toEqual(NOT_FOUND);
    expect(asBob.body).not.toContain('alice');
    // The same answer as for a session that never was: nothing tells Bob it exists.
    const unknown = await rawExchange(port, post(whoami, 'bob-token', 'A'.repeat(22)));
    expect([unknown.status, unknown.body]).toEqual([asBob.status, asBob.body]);
    expect((await rawExchange(port, get('bob-token', alice))).status).toBe(404);
    expect((await rawExchange(port, del('bob-token', alice))).status).toBe(404);

    const own = await rawExchange(port, post(whoami, 'alice-token', alice));
    expect(JSON.parse(own.body)).toEqual({
      jsonrpc: '2.0',
      id: 1,
      result: { sub: 'alice', scope: 'read' },
    });
    // Another token of Alice's (same subject) is Alice.
    expect((await rawExchange(port, post(whoami, 'alice-other-token', alice))).status).toBe(200);
    expect((await rawExchange(port, del('alice-token', alice))).status).toBe(200);
  });

  it('checks the principal on every process sharing the store, also after the record was rewritten', async () => {
    const store = createMemorySessionStore();
    const a = await start({ sessions: { store } });
    const b = await start({ sessions: { store } });
    const c = await start({ sessions: { store } });
    const alice = await open(a, 'alice-token');
    // B never saw the session: the store's record names its principal.
    expect((await rawExchange(b, post(whoami, 'bob-token', alice))).status).toBe(404);
    expect((await rawExchange(b, del('bob-token', alice))).status).toBe(404);
    expect((await rawExchange(b, post(whoami, 'alice-token', alice))).status).toBe(200);
    // Opening the GET stream rewrites the record (its stream id): the principal stays in it.
    const stream = await rawConnect(a);
    let head = '';
    stream.on('data', (chunk: Buffer) => {
      head += chunk.toString('latin1');
    });
    stream.write(get('alice-token', alice));
    await until(() => head.includes('\r\n\r\n'));
    expect(head.startsWith('HTTP/1.1 200 OK\r\n')).toBe(true);
    expect((await rawExchange(c, post(whoami, 'bob-token', alice))).status).toBe(404);
    expect((await rawExchange(c, post(whoami, 'alice-token', alice))).status).toBe(200);
  });

  it('takes a principalOf, and compares nothing without authenticate', async () => {
    const byScope = await start({
      sessions: { principalOf: (auth) => (auth as { scope: string }).scope },
    });
    const session = await open(byScope, 'alice-token');
    // Same scope, another subject: the same principal by this function.
    expect((await rawExchange(byScope, post(whoami, 'bob-token', session))).status).toBe(200);
    expect((await rawExchange(byScope, post(whoami, 'alice-other-token', session))).status).toBe(
      404,
    );

    const server = createServer();
    server.method('initialize', () => ({}));
    server.method('whoami', () => 'anyone');
    const handler = createStreamableHttpNodeHandler(server);
    handlers.push(handler);
    const { port } = await serve(handler);
    const opened = await rawExchange(port, post(init, 'alice-token'));
    const id = opened.headers['mcp-session-id']!;
    expect((await rawExchange(port, post(whoami, 'bob-token', id))).status).toBe(200);
  });
});
