// What goes back for a POST that holds nothing to answer (notifications only, alone or in a batch),
// with a real server behind every handler: plain HTTP answers 204 with no body (JSON-RPC 2.0: a
// batch of notifications gets no answer, not `[]`); Streamable HTTP answers 202 Accepted with no
// body (MCP, also for responses). A batch with one request among notifications gets that answer only.
import { createServer, type Server } from '@jsonrpc-kit/server';
import { afterEach, describe, expect, it } from 'vitest';
import { closeAll, rawExchange, rawPost, serve } from '../test/helpers.js';
import { createFetchHandler } from './fetch-handler.js';
import { createHttpHandler } from './node-handler.js';
import { createStreamableHttpHandler } from './streamable-handler.js';
import { createStreamableHttpNodeHandler } from './streamable-node.js';

const handlers: { close(): Promise<void> }[] = [];
afterEach(async () => {
  await Promise.all(handlers.splice(0).map((h) => h.close()));
  await closeAll();
});

const notes = JSON.stringify([
  { jsonrpc: '2.0', method: 'note', params: ['a'] },
  { jsonrpc: '2.0', method: 'note', params: ['b'] },
  { jsonrpc: '2.0', method: 'no_such_method' },
]);
const mixed = JSON.stringify([
  { jsonrpc: '2.0', method: 'note', params: ['c'] },
  { jsonrpc: '2.0', id: 7, method: 'add', params: [2, 3] },
  { jsonrpc: '2.0', method: 'note', params: ['d'] },
]);
const init =
  '{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-06-18"}}';
const JSON_AND_SSE = 'application/json, text/event-stream';

/** A real server that records the notes it was sent. */
function noteServer(): { server: Server; seen: string[] } {
  const seen: string[] = [];
  const server = createServer();
  server.method('initialize', () => ({ protocolVersion: '2025-06-18', capabilities: {} }));
  server.method('add', ([a, b]: [number, number]) => a + b);
  server.method('note', ([text]: [string]) => {
    seen.push(text);
  });
  return { server, seen };
}

async function until(check: () => boolean): Promise<void> {
  const end = Date.now() + 3000;
  while (!check()) {
    if (Date.now() > end) throw new Error('condition not met within 3 s');
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
}

describe('a POST of notifications only, on raw bytes', () => {
  it('node:http handler: 204, no body, no content type, for a batch of notifications', async () => {
    const { server, seen } = noteServer();
    const { port } = await serve(createHttpHandler(server));
    const r = await rawExchange(port, rawPost(notes));
    expect(r.head.startsWith('HTTP/1.1 204 No Content\r\n')).toBe(true);
    expect(r.body).toBe('');
    expect(r.headers['content-type']).toBeUndefined();
    expect(r.headers['content-length'] ?? '0').toBe('0');
    await until(() => seen.length === 2);
    expect(seen).toEqual(['a', 'b']);
  });

  it('node:http handler: a batch with one request among notifications gets its answer only', async () => {
    const { server, seen } = noteServer();
    const { port } = await serve(createHttpHandler(server));
    const r = await rawExchange(port, rawPost(mixed));
    expect(r.status).toBe(200);
    expect(r.body).toBe('[{"jsonrpc":"2.0","id":7,"result":5}]');
    expect(seen).toEqual(['c', 'd']);
  });

  it('fetch handler: 204 with a null body for a batch of notifications', async () => {
    const { server, seen } = noteServer();
    const res = await createFetchHandler(server)(
      new Request('http://rpc.example/rpc', {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: notes,
      }),
    );
    expect(res.status).toBe(204);
    expect(res.body).toBeNull();
    expect(await res.text()).toBe('');
    expect(res.headers.get('content-type')).toBeNull();
    await until(() => seen.length === 2);
    expect(seen).toEqual(['a', 'b']);
  });

  it('fetch handler: a batch with one request among notifications gets its answer only', async () => {
    const { server } = noteServer();
    const res = await createFetchHandler(server)(
      new Request('http://rpc.example/rpc', {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: mixed,
      }),
    );
    expect(res.status).toBe(200);
    expect(await res.text()).toBe('[{"jsonrpc":"2.0","id":7,"result":5}]');
  });

  it('Streamable HTTP (node:http): 202 Accepted, no body, for a batch of notifications or a response', async () => {
    const { server, seen } = noteServer();
    const handler = createStreamableHttpNodeHandler(server);
    handlers.push(handler);
    const { port } = await serve(handler);
    const headers = { 'content-type': 'application/json', accept: JSON_AND_SSE };
    const opened = await rawExchange(port, rawPost(init, headers));
    expect(opened.status).toBe(200);
    const session = { ...headers, 'mcp-session-id': opened.headers['mcp-session-id']! };
    const r = await rawExchange(port, rawPost(notes, session));
    expect(r.head.startsWith('HTTP/1.1 202 Accepted\r\n')).toBe(true);
    expect(r.body).toBe('');
    expect(r.headers['content-type']).toBeUndefined();
    await until(() => seen.length === 2);
    expect(seen).toEqual(['a', 'b']);
    const response = await rawExchange(
      port,
      rawPost('[{"jsonrpc":"2.0","id":"s-1","result":{}}]', session),
    );
    expect(response.head.startsWith('HTTP/1.1 202 Accepted\r\n')).toBe(true);
    expect(response.body).toBe('');
  });

  it('Streamable HTTP (fetch): 202 Accepted with a null body for a batch of notifications', async () => {
    const { server, seen } = noteServer();
    const handler = createStreamableHttpHandler(server);
    handlers.push(handler);
    const info = { remoteAddress: '127.0.0.1', localAddress: '127.0.0.1' };
    const post = (body: string, headers: Record<string, string> = {}): Request =>
      new Request('http://127.0.0.1/mcp', {
        method: 'POST',
        headers: {
          host: '127.0.0.1',
          'content-type': 'application/json',
          accept: JSON_AND_SSE,
          ...headers,
        },
        body,
      });
    const opened = await handler(post(init), info);
    expect(opened.status).toBe(200);
    await opened.text();
    const id = opened.headers.get('mcp-session-id')!;
    const res = await handler(post(notes, { 'mcp-session-id': id }), info);
    expect(res.status).toBe(202);
    expect(res.body).toBeNull();
    expect(res.headers.get('content-type')).toBeNull();
    await until(() => seen.length === 2);
    expect(seen).toEqual(['a', 'b']);
  });
});
