import { createServer as createHttpServer, type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createClient } from '@jsonrpc-kit/client';
import { createServer, type HandlerContext } from '@jsonrpc-kit/server';
import { createHttpTransport, listen } from '@jsonrpc-kit/transport-http/node';
import { createWebSocketServer } from '@jsonrpc-kit/transport-ws';
import { createWebSocketTransport } from '@jsonrpc-kit/transport-ws/client';
import { afterEach, describe, expect, it } from 'vitest';
import { openRawSocket } from './raw-socket.js';

const cleanups: (() => unknown)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

function contextServer() {
  const server = createServer({ callContext: true });
  const seen: Array<Pick<HandlerContext, 'deadline' | 'meta'>> = [];
  let ran = 0;
  server.method('look', (_params: unknown, ctx) => {
    ran++;
    seen.push({ deadline: ctx.deadline, meta: ctx.meta });
    return 'ok';
  });
  return { server, seen, ran: () => ran };
}

describe('call context over HTTP (headers)', () => {
  it('the kit client sends Jsonrpc-Timeout and Jsonrpc-Meta; without them, no such header', async () => {
    const received: IncomingHttpHeaders[] = [];
    const bodies: string[] = [];
    const raw = createHttpServer((req, res) => {
      received.push(req.headers);
      let body = '';
      req.on('data', (chunk: Buffer) => {
        body += chunk.toString();
      });
      req.on('end', () => {
        bodies.push(body);
        const { id } = JSON.parse(body) as { id: number };
        res.setHeader('content-type', 'application/json');
        res.end(`{"jsonrpc":"2.0","id":${id},"result":null}`);
      });
    });
    await new Promise<void>((resolve) => raw.listen(0, '127.0.0.1', resolve));
    cleanups.push(() => new Promise((resolve) => raw.close(resolve)));
    const { port } = raw.address() as AddressInfo;
    const client = createClient(createHttpTransport({ url: `http://127.0.0.1:${port}/` }));
    cleanups.push(() => client.close());

    await client.request('sum', [1, 2], { meta: { tenant: 'Zürich', n: 1 }, timeout: 1_500 });
    await client.request('sum', [1, 2], { timeout: 1_500 });
    expect(bodies).toEqual([
      '{"jsonrpc":"2.0","id":1,"method":"sum","params":[1,2]}',
      '{"jsonrpc":"2.0","id":2,"method":"sum","params":[1,2]}',
    ]);
    expect(received[0]?.['jsonrpc-timeout']).toBe('1500');
    expect(received[0]?.['jsonrpc-meta']).toBe('{"tenant":"Z\\u00fcrich","n":1}');
    expect(Object.keys(received[1] ?? {}).filter((name) => name.startsWith('jsonrpc-'))).toEqual(
      [],
    );
  });

  it('a raw POST with the headers reaches ctx; one whose time is up never runs', async () => {
    const { server, seen, ran } = contextServer();
    const http = await listen(server);
    cleanups.push(() => http.close());
    const post = (headers: Record<string, string>) =>
      fetch(http.url, {
        method: 'POST',
        headers: { 'content-type': 'application/json', ...headers },
        body: '{"jsonrpc":"2.0","id":1,"method":"look"}',
      }).then((response) => response.text());

    expect(await post({ 'jsonrpc-timeout': '4000', 'jsonrpc-meta': '{"tenant":"acme"}' })).toBe(
      '{"jsonrpc":"2.0","id":1,"result":"ok"}',
    );
    expect(seen[0]?.meta).toEqual({ tenant: 'acme' });
    expect(seen[0]!.deadline! - Date.now()).toBeGreaterThan(2_000);
    expect(await post({ 'jsonrpc-timeout': '0' })).toBe(
      `{"jsonrpc":"2.0","id":1,"error":{"code":-32005,"message":"Request timed out: the caller's deadline passed"}}`,
    );
    expect(ran()).toBe(1);
  });

  it('kit client to kit server: deadline and meta arrive', async () => {
    const { server, seen } = contextServer();
    const http = await listen(server);
    cleanups.push(() => http.close());
    const client = createClient(createHttpTransport({ url: http.url }));
    cleanups.push(() => client.close());
    const deadline = Date.now() + 3_000;
    await client.request('look', [1], { deadline, meta: { user: 'u' } });
    expect(seen[0]?.meta).toEqual({ user: 'u' });
    expect(Math.abs(seen[0]!.deadline! - deadline)).toBeLessThan(1_000);
  });
});

describe('call context over WebSocket (params._meta)', () => {
  it('raw frames carry it; the kit server reads it; a nested call given ctx passes it on', async () => {
    const server = createServer({ callContext: true });
    server.method('outer', async (_params: unknown, ctx) =>
      ctx.peer!.request('inner', { q: 1 }, ctx),
    );
    const wss = createWebSocketServer(server, { port: 0, host: '127.0.0.1' });
    cleanups.push(() => wss.close());
    await wss.ready;
    const { port } = wss.address()!;
    const socket = await openRawSocket(`ws://127.0.0.1:${port}/`);
    cleanups.push(() => socket.close());
    const next = socket.next;
    socket.send(
      '{"jsonrpc":"2.0","id":1,"method":"outer","params":{"_meta":{"tenant":"acme","rpc.timeout":4000}}}',
    );
    const inner = JSON.parse(await next()) as {
      id: number;
      params: { q: number; _meta: Record<string, unknown> };
    };
    expect(inner.params._meta.tenant).toBe('acme');
    expect(inner.params._meta['rpc.timeout']).toBeGreaterThan(2_000);
    socket.send(`{"jsonrpc":"2.0","id":${inner.id},"result":42}`);
    expect(await next()).toBe('{"jsonrpc":"2.0","id":1,"result":42}');
    socket.send('{"jsonrpc":"2.0","id":2,"method":"outer","params":{"_meta":{"rpc.timeout":0}}}');
    expect(await next()).toBe(
      `{"jsonrpc":"2.0","id":2,"error":{"code":-32005,"message":"Request timed out: the caller's deadline passed"}}`,
    );
  });

  it('kit client to kit server over WebSocket', async () => {
    const server = createServer({ callContext: true });
    server.method('look', (_params: unknown, ctx) => ({
      meta: ctx.meta,
      hasDeadline: ctx.deadline !== undefined,
    }));
    const wss = createWebSocketServer(server, { port: 0, host: '127.0.0.1' });
    cleanups.push(() => wss.close());
    await wss.ready;
    const { port } = wss.address()!;
    const client = createClient(createWebSocketTransport({ url: `ws://127.0.0.1:${port}/` }));
    cleanups.push(() => client.close());
    expect(
      await client.request('look', {}, { deadline: Date.now() + 2_000, meta: { trace: 't' } }),
    ).toEqual({ meta: { trace: 't' }, hasDeadline: true });
    expect(await client.request('look', {})).toEqual({ hasDeadline: false });
  });
});
