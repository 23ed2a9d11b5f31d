import type { Socket } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';
import { createServer, type Server } from '@jsonrpc-kit/server';
import { afterEach, describe, expect, it, vi } from 'vitest';
import {
  closeAll,
  closedWithin,
  rawConnect,
  rawExchange,
  rawPost,
  readResponse,
  serve,
  until,
} from '../test/helpers.js';
import { createMemoryEventStore } from './event-store.js';
import { HttpError } from './http-error.js';
import { createSseParser, type SseEvent } from './sse.js';
import type { StreamableHttpHandlerOptions } from './streamable-handler.js';
import { createStreamableHttpNodeHandler } from './streamable-node.js';

const handlers: { close(): Promise<void> }[] = [];
afterEach(async () => {
  await Promise.all(handlers.splice(0).map((h) => h.close()));
  await closeAll();
});

const JSON_AND_SSE = 'application/json, text/event-stream';
const init =
  '{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-06-18"}}';

interface Fixture {
  readonly server: Server;
  readonly port: number;
  readonly aborted: string[];
}

async function start(options: StreamableHttpHandlerOptions = {}): Promise<Fixture> {
  const server = createServer();
  const aborted: string[] = [];
  server.method('initialize', () => ({ protocolVersion: '2025-06-18', capabilities: {} }));
  server.method('add', ([a, b]: [number, number]) => a + b);
  server.method('slow', async (params: { _meta?: { progressToken?: string } }, ctx) => {
    const token = params._meta?.progressToken;
    for (let i = 1; i <= 2; i++) {
      await ctx.peer!.notify('notifications/progress', {
        progressToken: token,
        progress: i,
        total: 2,
      });
    }
    return 'done';
  });
  server.method('ask', async (_params: unknown, ctx) => {
    const roots = await ctx.peer!.request('roots/list');
    return { roots };
  });
  server.method('hang', (_params: unknown, ctx) => {
    return new Promise((_resolve, reject) => {
      ctx.signal.addEventListener('abort', () => {
        aborted.push(String(ctx.id));
        reject(new Error('aborted'));
      });
    });
  });
  server.method(
    'tick',
    async (params: { _meta?: { progressToken?: string }; wait: number; count?: number }, ctx) => {
      for (let i = 1; i <= (params.count ?? 1); i++) {
        await new Promise((resolve) => setTimeout(resolve, params.wait));
        await ctx.peer!.notify('notifications/progress', {
          progressToken: params._meta?.progressToken,
          progress: i,
        });
      }
      return 'ticked';
    },
  );
  server.method('quick', async (params: { wait: number }) => {
    await new Promise((resolve) => setTimeout(resolve, params.wait));
    return 'quick';
  });
  server.method('shout', async (_params: unknown, ctx) => {
    await ctx.peer!.notify('notifications/message', { level: 'info', data: 'hi' });
    return 'shouted';
  });
  server.method('facts', (_params: unknown, ctx) => ({
    kind: ctx.transport.kind,
    auth: ctx.transport.auth,
    signal: ctx.transport.signal !== undefined,
  }));
  server.method('later', (_params: unknown, ctx) => {
    setTimeout(() => void ctx.peer!.notify('pushed', { n: 1 }).catch(() => {}), 30);
    return 'ok';
  });
  const handler = createStreamableHttpNodeHandler(server, options);
  handlers.push(handler);
  const { port } = await serve(handler);
  return { server, port, aborted };
}

function post(body: string, headers: Record<string, string> = {}): string {
  return rawPost(body, { 'content-type': 'application/json', accept: JSON_AND_SSE, ...headers });
}

async function initialize(port: number): Promise<string> {
  const r = await rawExchange(port, post(init));
  expect(r.status).toBe(200);
  return r.headers['mcp-session-id']!;
}

function events(body: string): SseEvent[] {
  const out: SseEvent[] = [];
  createSseParser((e) => out.push(e)).push(body);
  return out;
}

/** Opens a raw connection, sends `raw`, and collects what arrives. */
async function openRaw(port: number, raw: string): Promise<{ socket: Socket; text: () => string }> {
  const socket = await rawConnect(port);
  let data = '';
  socket.on('data', (chunk: Buffer) => {
    data += chunk.toString('utf8');
  });
  socket.write(raw);
  return { socket, text: () => data };
}

describe('Streamable HTTP handler on raw bytes: POST', () => {
  it('starts a session on initialize: 200 JSON with an unguessable Mcp-Session-Id', async () => {
    const { port } = await start();
    const r = await rawExchange(port, post(init));
    expect(r.status).toBe(200);
    expect(r.headers['content-type']).toBe('application/json');
    expect(r.headers['mcp-session-id']).toMatch(/^[A-Za-z0-9_-]{22}$/);
    expect(JSON.parse(r.body)).toEqual({
      jsonrpc: '2.0',
      id: 0,
      result: { protocolVersion: '2025-06-18', capabilities: {} },
    });
    const again = await rawExchange(port, post(init));
    expect(again.headers['mcp-session-id']).not.toBe(r.headers['mcp-session-id']);
  });

  it('answers 202 with no body to a POST with only notifications', async () => {
    const { port } = await start();
    const id = await initialize(port);
    const r = await rawExchange(
      port,
      post('{"jsonrpc":"2.0","method":"notifications/initialized"}', { 'mcp-session-id': id }),
    );
    expect(r.head.startsWith('HTTP/1.1 202 Accepted\r\n')).toBe(true);
    expect(r.body).toBe('');
    expect(r.headers['content-type']).toBeUndefined();
  });

  it('answers a request with JSON when nothing but the answer is sent', async () => {
    const { port } = await start();
    const id = await initialize(port);
    const r = await rawExchange(
      port,
      post('{"jsonrpc":"2.0","id":1,"method":"add","params":[2,3]}', { 'mcp-session-id': id }),
    );
    expect(r.headers['content-type']).toBe('application/json');
    expect(r.body).toBe('{"jsonrpc":"2.0","id":1,"result":5}');
  });

  it('answers a batch with the array of answers', async () => {
    const { port } = await start();
    const id = await initialize(port);
    const r = await rawExchange(
      port,
      post(
        '[{"jsonrpc":"2.0","id":1,"method":"add","params":[1,1]},{"jsonrpc":"2.0","id":2,"method":"add","params":[2,2]}]',
        { 'mcp-session-id': id },
      ),
    );
    expect(JSON.parse(r.body)).toEqual([
      { jsonrpc: '2.0', id: 1, result: 2 },
      { jsonrpc: '2.0', id: 2, result: 4 },
    ]);
  });

  it('answers a batch that repeats an id with both answers, and frees the id', async () => {
    const { port } = await start();
    const id = await initialize(port);
    const twice =
      '[{"jsonrpc":"2.0","id":7,"method":"add","params":[1,2]},{"jsonrpc":"2.0","id":7,"method":"add","params":[3,4]}]';
    const r = await rawExchange(port, post(twice, { 'mcp-session-id': id }));
    expect(r.status).toBe(200);
    expect(JSON.parse(r.body)).toEqual([
      { jsonrpc: '2.0', id: 7, result: 3 },
      { jsonrpc: '2.0', id: 7, result: 7 },
    ]);
    // The POST ended its wait: the id may wait again in the session.
    const again = await rawExchange(
      port,
      post('{"jsonrpc":"2.0","id":7,"method":"add","params":[5,5]}', { 'mcp-session-id': id }),
    );
    expect(JSON.parse(again.body)).toEqual({ jsonrpc: '2.0', id: 7, result: 10 });
  });

  it('streams progress tied to the request, then the answer, then ends (each event with an id)', async () => {
    const { port } = await start();
    const id = await initialize(port);
    const r = await rawExchange(
      port,
      post('{"jsonrpc":"2.0","id":7,"method":"slow","params":{"_meta":{"progressToken":"t1"}}}', {
        'mcp-session-id': id,
      }),
    );
    expect(r.status).toBe(200);
    expect(r.headers['content-type']).toBe('text/event-stream');
    expect(r.headers['cache-control']).toBe('no-cache');
    expect(r.headers['mcp-session-id']).toBe(id);
    const list = events(r.body);
    expect(list.map((e) => JSON.parse(e.data))).toEqual([
      {
        jsonrpc: '2.0',
        method: 'notifications/progress',
        params: { progressToken: 't1', progress: 1, total: 2 },
      },
      {
        jsonrpc: '2.0',
        method: 'notifications/progress',
        params: { progressToken: 't1', progress: 2, total: 2 },
      },
      { jsonrpc: '2.0', id: 7, result: 'done' },
    ]);
    for (const e of list) expect(e.id).toMatch(/_\d+$/);
    expect(new Set(list.map((e) => e.id)).size).toBe(3);
    expect(r.body).toMatch(
      /^id: [^\n]+\ndata: \{"jsonrpc":"2.0","method":"notifications\/progress"/,
    );
  });

  it('answers JSON to a client that does not accept event streams', async () => {
    const { port } = await start();
    const id = await initialize(port);
    const r = await rawExchange(
      port,
      post('{"jsonrpc":"2.0","id":7,"method":"slow","params":{}}', {
        'mcp-session-id': id,
        accept: 'application/json',
      }),
    );
    expect(r.headers['content-type']).toBe('application/json');
    expect(r.body).toBe('{"jsonrpc":"2.0","id":7,"result":"done"}');
  });

  it("always streams with responseMode 'sse'", async () => {
    const { port } = await start({ responseMode: 'sse' });
    const id = await initialize(port);
    const r = await rawExchange(
      port,
      post('{"jsonrpc":"2.0","id":1,"method":"add","params":[2,3]}', { 'mcp-session-id': id }),
    );
    expect(r.headers['content-type']).toBe('text/event-stream');
    expect(events(r.body).map((e) => e.data)).toEqual(['{"jsonrpc":"2.0","id":1,"result":5}']);
  });

  it('carries a server→client request on the stream and takes its answer on another POST', async () => {
    const { port } = await start();
    const id = await initialize(port);
    const open = await openRaw(
      port,
      post('{"jsonrpc":"2.0","id":9,"method":"ask"}', { 'mcp-session-id': id }),
    );
    await until(() => open.text().includes('roots/list'));
    const request = events(
      open
        .text()
        .slice(open.text().indexOf('\r\n\r\n') + 4)
        .replace(/^[0-9a-f]+\r\n/gm, ''),
    );
    const asked = JSON.parse(request[0]!.data) as { id: number; method: string };
    expect(asked.method).toBe('roots/list');
    const reply = await rawExchange(
      port,
      post(JSON.stringify({ jsonrpc: '2.0', id: asked.id, result: { roots: [] } }), {
        'mcp-session-id': id,
      }),
    );
    expect(reply.status).toBe(202);
    await until(() => open.text().includes('"id":9,"result"'));
    expect(open.text()).toContain('{"jsonrpc":"2.0","id":9,"result":{"roots":{"roots":[]}}}');
  });
});

describe('Streamable HTTP handler on raw bytes: sessions and refusals', () => {
  it('answers 400 to a request without a session id and 404 to an unknown one', async () => {
    const { port } = await start();
    await initialize(port);
    const add = '{"jsonrpc":"2.0","id":1,"method":"add","params":[1,2]}';
    const missing = await rawExchange(port, post(add));
    expect(missing.status).toBe(400);
    expect(JSON.parse(missing.body)).toEqual({
      jsonrpc: '2.0',
      id: null,
      error: { code: -32000, message: 'Bad Request: mcp-session-id header is required' },
    });
    const unknown = await rawExchange(port, post(add, { 'mcp-session-id': 'nope' }));
    expect(unknown.status).toBe(404);
    expect(JSON.parse(unknown.body).error).toEqual({ code: -32001, message: 'Session not found' });
  });

  it('ends a session on DELETE (200), after which it is unknown (404)', async () => {
    const { port } = await start();
    const id = await initialize(port);
    const del = await rawExchange(
      port,
      `DELETE / HTTP/1.1\r\nhost: 127.0.0.1\r\nmcp-session-id: ${id}\r\n\r\n`,
    );
    expect(del.status).toBe(200);
    const after = await rawExchange(
      port,
      post('{"jsonrpc":"2.0","id":1,"method":"add","params":[1,2]}', { 'mcp-session-id': id }),
    );
    expect(after.status).toBe(404);
  });

  it('expires idle sessions', async () => {
    const { port } = await start({ sessions: { idleTimeout: 30 } });
    const id = await initialize(port);
    await new Promise((resolve) => setTimeout(resolve, 120));
    const after = await rawExchange(
      port,
      post('{"jsonrpc":"2.0","id":1,"method":"add","params":[1,2]}', { 'mcp-session-id': id }),
    );
    expect(after.status).toBe(404);
  });

  it('uses a configured session header name', async () => {
    const { port } = await start({ sessions: { header: 'X-Session', startMethod: null } });
    const r = await rawExchange(
      port,
      post('{"jsonrpc":"2.0","id":1,"method":"add","params":[1,2]}'),
    );
    expect(r.headers['x-session']).toMatch(/^[A-Za-z0-9_-]{22}$/);
    expect(r.headers['mcp-session-id']).toBeUndefined();
  });

  it('refuses a foreign Origin or Host on a loopback bind with 403 (DNS-rebinding protection)', async () => {
    const { port } = await start();
    const evilOrigin = await rawExchange(port, post(init, { origin: 'http://evil.example' }));
    expect(evilOrigin.status).toBe(403);
    expect(JSON.parse(evilOrigin.body).error.message).toBe('Forbidden: Origin not allowed');
    const evilHost = await rawExchange(
      port,
      `POST / HTTP/1.1\r\nhost: evil.example:${port}\r\ncontent-type: application/json\r\naccept: ${JSON_AND_SSE}\r\ncontent-length: ${init.length}\r\n\r\n${init}`,
    );
    expect(evilHost.status).toBe(403);
    const local = await rawExchange(port, post(init, { origin: `http://localhost:${port}` }));
    expect(local.status).toBe(200);
  });

  it('lets an allowed origin through, and can be switched off', async () => {
    const allowed = await start({ allowedOrigins: ['https://app.example'] });
    expect(
      (await rawExchange(allowed.port, post(init, { origin: 'https://app.example' }))).status,
    ).toBe(200);
    const off = await start({ dnsRebindingProtection: false });
    expect(
      (await rawExchange(off.port, post(init, { origin: 'http://evil.example' }))).status,
    ).toBe(200);
  });

  it('answers a CORS preflight for GET, POST and DELETE and exposes the session header', async () => {
    const { port } = await start({ cors: { origin: ['http://localhost:5173'] } });
    const pre = await rawExchange(
      port,
      'OPTIONS / HTTP/1.1\r\nhost: 127.0.0.1\r\norigin: http://localhost:5173\r\naccess-control-request-method: DELETE\r\n\r\n',
    );
    expect(pre.status).toBe(204);
    expect(pre.headers['access-control-allow-methods']).toBe('GET, POST, DELETE, OPTIONS');
    const r = await rawExchange(port, post(init, { origin: 'http://localhost:5173' }));
    expect(r.headers['access-control-allow-origin']).toBe('http://localhost:5173');
    expect(r.headers['access-control-expose-headers']).toBe('mcp-session-id');
  });

  it('answers 400 to an unsupported MCP-Protocol-Version', async () => {
    const { port } = await start();
    const r = await rawExchange(port, post(init, { 'mcp-protocol-version': '1999-01-01' }));
    expect(r.status).toBe(400);
    expect(JSON.parse(r.body).error.message).toMatch(
      /^Bad Request: Unsupported protocol version: 1999-01-01/,
    );
  });

  it('answers 400 with -32700 to a body that is not JSON', async () => {
    const { port } = await start();
    const r = await rawExchange(port, post('{nope'));
    expect(r.status).toBe(400);
    expect(JSON.parse(r.body).error.code).toBe(-32700);
  });

  it('answers 405 with Allow to other methods, and 415/413 as the plain handler does', async () => {
    const { port } = await start({ maxMessageBytes: 64 });
    const put = await rawExchange(
      port,
      'PUT / HTTP/1.1\r\nhost: 127.0.0.1\r\ncontent-length: 0\r\n\r\n',
    );
    expect(put.status).toBe(405);
    expect(put.headers.allow).toBe('GET, POST, DELETE');
    const text = await rawExchange(port, rawPost(init, { 'content-type': 'text/plain' }));
    expect(text.status).toBe(415);
    const big = await rawExchange(port, post(`[${' '.repeat(100)}]`));
    expect(big.status).toBe(413);
    expect(JSON.parse(big.body).error.code).toBe(-32004);
  });
});

describe('Streamable HTTP handler on raw bytes: a POST body that stalls', () => {
  /** The head of an `initialize` POST whose body is cut short after `{"jsonrpc"`. */
  const stalledPost = `POST / HTTP/1.1\r\nhost: 127.0.0.1\r\ncontent-type: application/json\r\naccept: ${JSON_AND_SSE}\r\ncontent-length: ${init.length}\r\n\r\n{"jsonrpc"`;

  it('answers 408 and closes the connection, while other requests are served', async () => {
    const { port } = await start({ bodyTimeout: 1000 });
    const stalled = await rawConnect(port);
    let answered = false;
    const stalledResponse = readResponse(stalled, 5000).finally(() => {
      answered = true;
    });
    const started = Date.now();
    stalled.write(stalledPost);
    for (let i = 0; i < 3; i++) expect(await initialize(port)).toMatch(/^[A-Za-z0-9_-]{22}$/);
    expect(answered).toBe(false);
    const r = await stalledResponse;
    expect(Date.now() - started).toBeGreaterThanOrEqual(990);
    expect(r.status).toBe(408);
    expect(r.headers.connection).toBe('close');
    expect(JSON.parse(r.body).error.message).toBe('Request body timed out');
    expect(await closedWithin(stalled)).toBe(true);
  });

  it('does not time out a body that arrives in time', async () => {
    const { port } = await start({ bodyTimeout: 500 });
    const socket = await rawConnect(port);
    const response = readResponse(socket);
    socket.write(stalledPost.slice(0, -'{"jsonrpc"'.length));
    await sleep(100);
    socket.write(init);
    const r = await response;
    expect(r.status).toBe(200);
    expect(JSON.parse(r.body).id).toBe(0);
  });

  it('watches every waiting body on one shared timer, not a timer each', async () => {
    const server = createServer();
    const handler = createStreamableHttpNodeHandler(server, { bodyTimeout: 60_000 });
    handlers.push(handler);
    let reading = 0;
    const { port } = await serve((req, res) => {
      reading++;
      handler(req, res);
    });
    const timers = (): number =>
      process.getActiveResourcesInfo().filter((name) => name === 'Timeout').length;
    const before = timers();
    const sockets: Socket[] = [];
    for (let i = 0; i < 20; i++) {
      const socket = await rawConnect(port);
      socket.on('error', () => {});
      socket.write(stalledPost);
      sockets.push(socket);
    }
    // The handler starts reading a body in the call that takes its request.
    await until(() => reading === 20);
    const during = timers();
    for (const socket of sockets) socket.destroy();
    expect(during - before).toBeLessThanOrEqual(1);
  });
});

describe('Streamable HTTP handler on raw bytes: GET stream and resumption', () => {
  it('opens the session stream on GET and delivers messages not tied to a request', async () => {
    const { port } = await start();
    const id = await initialize(port);
    const stream = await openRaw(
      port,
      `GET / HTTP/1.1\r\nhost: 127.0.0.1\r\naccept: text/event-stream\r\nmcp-session-id: ${id}\r\n\r\n`,
    );
    await until(() => stream.text().includes('\r\n\r\n'));
    expect(stream.text()).toMatch(/^HTTP\/1\.1 200 OK\r\n/);
    expect(stream.text()).toContain('content-type: text/event-stream');
    const r = await rawExchange(
      port,
      post('{"jsonrpc":"2.0","id":1,"method":"later"}', { 'mcp-session-id': id }),
    );
    expect(r.body).toBe('{"jsonrpc":"2.0","id":1,"result":"ok"}');
    await until(() => stream.text().includes('"method":"pushed"'));
    expect(stream.text()).toMatch(
      /id: [^\n]+\ndata: \{"jsonrpc":"2.0","method":"pushed","params":\{"n":1\}\}\n\n/,
    );
    const second = await rawExchange(
      port,
      `GET / HTTP/1.1\r\nhost: 127.0.0.1\r\naccept: text/event-stream\r\nmcp-session-id: ${id}\r\n\r\n`,
    );
    expect(second.status).toBe(409);
  });

  it('answers GET with 406 without Accept: text/event-stream, 405 when stateless', async () => {
    const { port } = await start();
    const id = await initialize(port);
    const r = await rawExchange(
      port,
      `GET / HTTP/1.1\r\nhost: 127.0.0.1\r\nmcp-session-id: ${id}\r\n\r\n`,
    );
    expect(r.status).toBe(406);
    const stateless = await start({ sessions: false });
    const g = await rawExchange(
      stateless.port,
      'GET / HTTP/1.1\r\nhost: 127.0.0.1\r\naccept: text/event-stream\r\n\r\n',
    );
    expect(g.status).toBe(405);
    expect(g.headers.allow).toBe('POST');
  });

  it('replays what a dropped stream missed after Last-Event-ID', async () => {
    const store = createMemoryEventStore();
    const { port } = await start({ eventStore: store });
    const id = await initialize(port);
    const r = await rawExchange(
      port,
      post('{"jsonrpc":"2.0","id":7,"method":"slow","params":{"_meta":{"progressToken":"t"}}}', {
        'mcp-session-id': id,
      }),
    );
    const list = events(r.body);
    expect(list).toHaveLength(3);
    const replay = await rawExchange(
      port,
      `GET / HTTP/1.1\r\nhost: 127.0.0.1\r\naccept: text/event-stream\r\nmcp-session-id: ${id}\r\nlast-event-id: ${list[0]!.id}\r\n\r\n`,
    );
    expect(replay.status).toBe(200);
    const replayed = events(replay.body);
    expect(replayed.map((e) => e.id)).toEqual([list[1]!.id, list[2]!.id]);
    expect(replayed.map((e) => e.data)).toEqual([list[1]!.data, list[2]!.data]);
    const unknown = await rawExchange(
      port,
      `GET / HTTP/1.1\r\nhost: 127.0.0.1\r\naccept: text/event-stream\r\nmcp-session-id: ${id}\r\nlast-event-id: nope\r\n\r\n`,
    );
    expect(unknown.status).toBe(404);
  });

  it("refuses (404) a Last-Event-ID of another session's stream and replays none of its events", async () => {
    const store = createMemoryEventStore();
    const { port } = await start({ eventStore: store });
    const alice = await initialize(port);
    const bob = await initialize(port);
    const r = await rawExchange(
      port,
      post('{"jsonrpc":"2.0","id":7,"method":"slow","params":{"_meta":{"progressToken":"t"}}}', {
        'mcp-session-id': alice,
      }),
    );
    const list = events(r.body);
    expect(list).toHaveLength(3);
    const stolen = await rawExchange(
      port,
      `GET / HTTP/1.1\r\nhost: 127.0.0.1\r\naccept: text/event-stream\r\nmcp-session-id: ${bob}\r\nlast-event-id: ${list[0]!.id}\r\n\r\n`,
    );
    expect(stolen.status).toBe(404);
    expect(stolen.body).not.toContain('done');
    expect(stolen.body).not.toContain('progress');
    // The owner still resumes its own stream.
    const own = await rawExchange(
      port,
      `GET / HTTP/1.1\r\nhost: 127.0.0.1\r\naccept: text/event-stream\r\nmcp-session-id: ${alice}\r\nlast-event-id: ${list[0]!.id}\r\n\r\n`,
    );
    expect(own.status).toBe(200);
    expect(events(own.body).map((e) => e.id)).toEqual([list[1]!.id, list[2]!.id]);
  });
});

describe('Streamable HTTP handler: routing and resumption of a request stream', () => {
  it('sends progress to the stream of the request whose token it names, not the newest one', async () => {
    const { port } = await start();
    const id = await initialize(port);
    const a = rawExchange(
      port,
      post(
        '{"jsonrpc":"2.0","id":"a","method":"tick","params":{"_meta":{"progressToken":"ta"},"wait":40}}',
        {
          'mcp-session-id': id,
        },
      ),
    );
    await new Promise((resolve) => setTimeout(resolve, 10));
    const b = rawExchange(
      port,
      post('{"jsonrpc":"2.0","id":"b","method":"quick","params":{"wait":100}}', {
        'mcp-session-id': id,
      }),
    );
    const [ra, rb] = await Promise.all([a, b]);
    expect(ra.headers['content-type']).toBe('text/event-stream');
    expect(
      events(ra.body).map((e) => JSON.parse(e.data).params?.progressToken ?? 'answer'),
    ).toEqual(['ta', 'answer']);
    // b saw nothing but its answer, so it was answered as JSON.
    expect(rb.headers['content-type']).toBe('application/json');
    expect(rb.body).toBe('{"jsonrpc":"2.0","id":"b","result":"quick"}');
  });

  it('sends a message naming no token to the newest streamable request still waiting', async () => {
    const { port } = await start();
    const id = await initialize(port);
    const quick = (rid: string, wait: number) =>
      rawExchange(
        port,
        post(`{"jsonrpc":"2.0","id":"${rid}","method":"quick","params":{"wait":${wait}}}`, {
          'mcp-session-id': id,
        }),
      );
    const a = quick('a', 200);
    await new Promise((resolve) => setTimeout(resolve, 10));
    const b = quick('b', 200);
    await new Promise((resolve) => setTimeout(resolve, 10));
    const c = await quick('c', 10);
    expect(c.body).toBe('{"jsonrpc":"2.0","id":"c","result":"quick"}');
    // Accepts JSON only: it cannot carry the server's messages, so b (the newest that can) does.
    const d = await rawExchange(
      port,
      rawPost('{"jsonrpc":"2.0","id":"d","method":"shout"}', {
        'content-type': 'application/json',
        accept: 'application/json',
        'mcp-session-id': id,
      }),
    );
    expect(d.body).toBe('{"jsonrpc":"2.0","id":"d","result":"shouted"}');
    const [ra, rb] = await Promise.all([a, b]);
    expect(ra.headers['content-type']).toBe('application/json');
    expect(rb.headers['content-type']).toBe('text/event-stream');
    expect(events(rb.body).map((e) => JSON.parse(e.data).method ?? JSON.parse(e.data).id)).toEqual([
      'notifications/message',
      'b',
    ]);
  });

  it('keeps a request running when its stream drops, and resumes the stream with Last-Event-ID', async () => {
    const { port } = await start();
    const id = await initialize(port);
    const open = await openRaw(
      port,
      post(
        '{"jsonrpc":"2.0","id":5,"method":"tick","params":{"_meta":{"progressToken":"t"},"wait":40,"count":4}}',
        {
          'mcp-session-id': id,
        },
      ),
    );
    await until(() => open.text().includes('"progress":1'));
    const first = /\nid: ([^\r\n]+)\n/.exec(open.text())![1]!;
    open.socket.destroy();
    const resumed = await rawExchange(
      port,
      `GET / HTTP/1.1\r\nhost: 127.0.0.1\r\naccept: text/event-stream\r\nmcp-session-id: ${id}\r\nlast-event-id: ${first}\r\n\r\n`,
    );
    expect(resumed.status).toBe(200);
    const rest = events(resumed.body).map((e) => JSON.parse(e.data));
    expect(rest.map((m) => m.params?.progress ?? m.result)).toEqual([2, 3, 4, 'ticked']);
  });
});

describe('Streamable HTTP handler: what handlers see', () => {
  it("gives a session's handlers the starting request's facts and auth, not its signal", async () => {
    const { port } = await start({ authenticate: (ctx) => ({ user: ctx.headers?.['x-user'] }) });
    const r = await rawExchange(port, post(init, { 'x-user': 'ada' }));
    const id = r.headers['mcp-session-id']!;
    const facts = await rawExchange(
      port,
      post('{"jsonrpc":"2.0","id":1,"method":"facts"}', { 'mcp-session-id': id, 'x-user': 'ada' }),
    );
    expect(JSON.parse(facts.body).result).toEqual({
      kind: 'http',
      auth: { user: 'ada' },
      signal: false,
    });
  });

  it('refuses with the status authenticate throws', async () => {
    const { port } = await start({
      authenticate: () => {
        throw new HttpError(401, 'Unauthorized', { headers: { 'WWW-Authenticate': 'Bearer' } });
      },
    });
    const r = await rawExchange(port, post(init));
    expect(r.status).toBe(401);
    expect(r.headers['www-authenticate']).toBe('Bearer');
    expect(r.headers['mcp-session-id']).toBeUndefined();
  });
});

describe('Streamable HTTP handler: stateless and disconnects', () => {
  it('serves each POST on its own connection when sessions are off', async () => {
    const { port } = await start({ sessions: false });
    const r = await rawExchange(
      port,
      post('{"jsonrpc":"2.0","id":1,"method":"add","params":[4,5]}'),
    );
    expect(r.body).toBe('{"jsonrpc":"2.0","id":1,"result":9}');
    expect(r.headers['mcp-session-id']).toBeUndefined();
  });

  it('aborts what a client started when it disconnects (no session, nothing to replay)', async () => {
    const { port, aborted } = await start({ sessions: false, eventStore: false });
    const open = await openRaw(port, post('{"jsonrpc":"2.0","id":"h1","method":"hang"}'));
    await new Promise((resolve) => setTimeout(resolve, 30));
    open.socket.destroy();
    await until(() => aborted.length === 1);
    expect(aborted).toEqual(['h1']);
  });
});

describe('Streamable HTTP handler: a session whose client went away', () => {
  it('expires idleTimeout after its client left, though a handler still runs, aborting it', async () => {
    const { port, aborted } = await start({ sessions: { idleTimeout: 100 } });
    const id = await initialize(port);
    const kept = await initialize(port);
    const stream = await openRaw(
      port,
      `GET / HTTP/1.1\r\nhost: 127.0.0.1\r\naccept: text/event-stream\r\nmcp-session-id: ${kept}\r\n\r\n`,
    );
    const open = await openRaw(
      port,
      post('{"jsonrpc":"2.0","id":"h1","method":"hang"}', { 'mcp-session-id': id }),
    );
    await sleep(30);
    open.socket.destroy();
    await until(() => aborted.length === 1, 2000);
    expect(aborted).toEqual(['h1']);
    const after = await rawExchange(
      port,
      post('{"jsonrpc":"2.0","id":2,"method":"add","params":[1,2]}', { 'mcp-session-id': id }),
    );
    expect(after.status).toBe(404);
    // A session whose client holds its GET stream open is not idle, however long.
    expect(stream.text().startsWith('HTTP/1.1 200 OK\r\n')).toBe(true);
    const alive = await rawExchange(
      port,
      post('{"jsonrpc":"2.0","id":3,"method":"add","params":[1,2]}', { 'mcp-session-id': kept }),
    );
    expect(alive.body).toBe('{"jsonrpc":"2.0","id":3,"result":3}');
  });

  it('without an event store, aborts at once a call whose answer stream dropped; the session goes on', async () => {
    const { port, aborted } = await start({ eventStore: false });
    const id = await initialize(port);
    const open = await openRaw(
      port,
      post('{"jsonrpc":"2.0","id":"h2","method":"hang"}', { 'mcp-session-id': id }),
    );
    await sleep(30);
    open.socket.destroy();
    await until(() => aborted.length === 1, 1000);
    expect(aborted).toEqual(['h2']);
    const after = await rawExchange(
      port,
      post('{"jsonrpc":"2.0","id":"h2b","method":"add","params":[1,2]}', { 'mcp-session-id': id }),
    );
    expect(after.body).toBe('{"jsonrpc":"2.0","id":"h2b","result":3}');
  });
});

describe('Streamable HTTP handler on raw bytes: a POST is read as its server reads it', () => {
  async function startWith(serverOptions: Parameters<typeof createServer>[0]) {
    const server = createServer(serverOptions);
    server.method('initialize', () => ({ protocolVersion: '2025-06-18', capabilities: {} }));
    server.method('add', ([a, b]: [number, number]) => a + b);
    server.method('roots', async (_params: unknown, ctx) => {
      try {
        return await ctx.peer!.request('roots/list');
      } catch (error) {
        return { failed: (error as Error).name, message: (error as Error).message };
      }
    });
    server.method('wait', async ([ms, value]: [number, unknown]) => {
      await new Promise((resolve) => setTimeout(resolve, ms));
      return value;
    });
    const handler = createStreamableHttpNodeHandler(server, { responseMode: 'json' });
    handlers.push(handler);
    const { port } = await serve(handler);
    const session = await initialize(port);
    /** Posts `body` on the session; the answer must come within the bound, not hang. */
    const call = async (body: string) => {
      const r = await rawExchange(port, post(body, { 'mcp-session-id': session }), 2000);
      return { status: r.status, body: r.body };
    };
    return { server, call };
  }
  const INVALID = '{"code":-32600,"message":"Invalid Request"}';

  it('answers a request whose id is no valid id with id null, alone or in a batch', async () => {
    const { call } = await startWith({});
    for (const id of ['{}', 'true', '[1]', '{"a":1}']) {
      expect(await call(`{"jsonrpc":"2.0","id":${id},"method":"add","params":[1,2]}`)).toEqual({
        status: 200,
        body: `{"jsonrpc":"2.0","id":null,"error":${INVALID}}`,
      });
    }
    expect(
      await call(
        '[{"jsonrpc":"2.0","id":[1],"method":"add","params":[1,2]},' +
          '{"jsonrpc":"2.0","id":9,"method":"add","params":[1,2]}]',
      ),
    ).toEqual({
      status: 200,
      body: `[{"jsonrpc":"2.0","id":null,"error":${INVALID}},{"jsonrpc":"2.0","id":9,"result":3}]`,
    });
    // And the session goes on serving.
    expect(await call('{"jsonrpc":"2.0","id":10,"method":"add","params":[2,3]}')).toEqual({
      status: 200,
      body: '{"jsonrpc":"2.0","id":10,"result":5}',
    });
  });

  it('answers a batch the server refuses whole with its one error', async () => {
    const batch = [1, 2, 3].map(
      (id) => `{"jsonrpc":"2.0","id":${id},"method":"add","params":[1,2]}`,
    );
    const limited = await startWith({ maxBatchSize: 2 });
    expect(await limited.call(`[${batch.join(',')}]`)).toEqual({
      status: 200,
      body: '{"jsonrpc":"2.0","id":null,"error":{"code":-32003,"message":"Batch too large"}}',
    });
    expect(await limited.call(`[${batch.slice(0, 2).join(',')}]`)).toEqual({
      status: 200,
      body: '[{"jsonrpc":"2.0","id":1,"result":3},{"jsonrpc":"2.0","id":2,"result":3}]',
    });
    const noBatches = await startWith({ batches: false });
    expect(await noBatches.call(`[${batch[0]}]`)).toEqual({
      status: 200,
      body:
        '{"jsonrpc":"2.0","id":null,"error":{"code":-32600,' +
        '"message":"Invalid Request: this server does not accept batches"}}',
    });
  });

  it('answers an id beyond what a double holds by its text', async () => {
    const { call } = await startWith({});
    expect(await call('{"jsonrpc":"2.0","id":1e400,"method":"add","params":[1,2]}')).toEqual({
      status: 200,
      body: '{"jsonrpc":"2.0","id":1e400,"result":3}',
    });
  });

  it('reads JSON-RPC 1.0 as a server with jsonrpc1 does: id null is a notification', async () => {
    const { call } = await startWith({ jsonrpc1: true });
    expect(await call('{"method":"add","params":[1,2],"id":null}')).toEqual({
      status: 202,
      body: '',
    });
    expect(await call('{"method":"add","params":[1,2],"id":4}')).toEqual({
      status: 200,
      body: '{"id":4,"result":3,"error":null}',
    });
  });

  it('gives each of many POSTs in flight its own answer, whatever order they end in', async () => {
    const { call } = await startWith({});
    const calls = Array.from({ length: 24 }, (_, i) =>
      call(`{"jsonrpc":"2.0","id":${i},"method":"wait","params":[${(24 - i) * 5},"r${i}"]}`),
    );
    const answers = await Promise.all(calls);
    expect(answers).toEqual(
      answers.map((_, i) => ({
        status: 200,
        body: `{"jsonrpc":"2.0","id":${i},"result":"r${i}"}`,
      })),
    );
  });

  it('refuses a POST that reuses an id still waiting in another POST of the session', async () => {
    const { call } = await startWith({});
    const first = call('{"jsonrpc":"2.0","id":1,"method":"wait","params":[150,"first"]}');
    await new Promise((resolve) => setTimeout(resolve, 30));
    // Taken: its answer would go to the first POST, and the first one's to it.
    expect(await call('{"jsonrpc":"2.0","id":1,"method":"add","params":[1,2]}')).toEqual({
      status: 400,
      body:
        '{"jsonrpc":"2.0","id":null,"error":{"code":-32600,' +
        '"message":"Invalid Request: id 1 is already in use in this session"}}',
    });
    expect(await first).toEqual({ status: 200, body: '{"jsonrpc":"2.0","id":1,"result":"first"}' });
    // Answered: the id is free again.
    expect(await call('{"jsonrpc":"2.0","id":1,"method":"add","params":[1,2]}')).toEqual({
      status: 200,
      body: '{"jsonrpc":"2.0","id":1,"result":3}',
    });
  });

  it('fails a request to the client at once when no stream can carry it (JSON answers, no GET)', async () => {
    const { call } = await startWith({});
    const r = await call('{"jsonrpc":"2.0","id":1,"method":"roots"}');
    expect(r.status).toBe(200);
    expect(JSON.parse(r.body)).toEqual({
      jsonrpc: '2.0',
      id: 1,
      result: {
        failed: 'TransportError',
        message: expect.stringMatching(/^No event stream to send this request to the client on/),
      },
    });
  });

  it('parses each POST body once: the session takes what the handler read', async () => {
    let reads = 0;
    const { call } = await startWith({
      codec: {
        read: (text) => {
          reads++;
          return JSON.parse(text);
        },
      },
    });
    const body = `{"jsonrpc":"2.0","id":1,"method":"add","params":[1,2],"pad":"${'x'.repeat(1000)}"}`;
    const parse = vi.spyOn(JSON, 'parse');
    try {
      reads = 0;
      expect(await call(body)).toEqual({
        status: 200,
        body: '{"jsonrpc":"2.0","id":1,"result":3}',
      });
      expect(await call(`[${body}]`)).toEqual({
        status: 200,
        body: '[{"jsonrpc":"2.0","id":1,"result":3}]',
      });
      // Read by the server's own reader (its codec), once per body, and by nothing else.
      expect(reads).toBe(2);
      const bodies = parse.mock.calls.filter(([text]) => text === body || text === `[${body}]`);
      expect(bodies).toHaveLength(2);
    } finally {
      parse.mockRestore();
    }
  });
});
