import { createClient } from '@jsonrpc-kit/client';
import {
  ErrorCode,
  type JsonRpcError,
  MethodNotFoundError,
  type Transport,
  TransportError,
} from '@jsonrpc-kit/core';
import { createServer } from '@jsonrpc-kit/server';
import { createHttpTransport as createFetchTransport } from '@jsonrpc-kit/transport-http';
import {
  createFetchHandler,
  createHttpTransport,
  HttpError,
  type HttpListener,
  type ListenOptions,
  listen,
} from '@jsonrpc-kit/transport-http/node';
import { afterEach, describe, expect, it } from 'vitest';

const cleanups: (() => unknown)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

function makeServer() {
  const server = createServer();
  const aborted: unknown[] = [];
  server.method('add', (params) => {
    const [a, b] = params as [number, number];
    return a + b;
  });
  server.method('whoami', (_params, ctx) => ({
    kind: ctx.transport.kind,
    user: ctx.transport.auth,
    agent: ctx.transport.headers?.['x-agent'],
    remote: ctx.transport.remoteAddress,
  }));
  server.method('hang', (_params, ctx) => {
    return new Promise((_resolve, reject) => {
      ctx.signal.addEventListener('abort', () => {
        aborted.push(ctx.signal.reason);
        reject(ctx.signal.reason);
      });
    });
  });
  server.notification('note', () => {});
  return { server, aborted };
}

async function serve(options: ListenOptions = {}) {
  const made = makeServer();
  const http: HttpListener = await listen(made.server, options);
  cleanups.push(() => http.close());
  return { ...made, http };
}

function client(transport: Transport, options: Parameters<typeof createClient>[1] = {}) {
  const c = createClient(transport, options);
  cleanups.push(() => c.close());
  return c;
}

const transports: [string, (url: string, extra?: object) => Transport][] = [
  ['undici', (url, extra) => createHttpTransport({ url, ...extra })],
  ['fetch', (url, extra) => createFetchTransport({ url, ...extra })],
];

describe.each(transports)('client × server over HTTP (%s)', (_name, make) => {
  it('requests, notifies and batches', async () => {
    const { http } = await serve();
    const c = client(make(http.url));
    expect(await c.request('add', [1, 2])).toBe(3);
    await expect(c.notify('note', { a: 1 })).resolves.toBeUndefined();
    const results = await c.batch((b) => [
      b.request('add', [2, 3]),
      b.notify('note'),
      b.request('nope'),
    ]);
    expect(results[0]).toEqual({ ok: true, value: 5 });
    expect(results).toHaveLength(2);
    expect(results[1]!.ok).toBe(false);
  });

  it('gets wire errors as their classes (200 with an error body)', async () => {
    const { http } = await serve();
    const c = client(make(http.url));
    const error = (await c.request('missing').catch((e: unknown) => e)) as JsonRpcError;
    expect(error).toBeInstanceOf(MethodNotFoundError);
    expect(error.code).toBe(ErrorCode.MethodNotFound);
  });

  it('passes headers, auth and the transport kind to handlers', async () => {
    const { http } = await serve({
      authenticate: (ctx) => {
        if (ctx.headers?.authorization !== 'Bearer t0k3n') throw new HttpError(401);
        return 'ada';
      },
    });
    const c = client(
      make(http.url, { headers: () => ({ authorization: 'Bearer t0k3n', 'x-agent': 'e2e' }) }),
    );
    expect(await c.request('whoami')).toEqual({
      kind: 'http',
      user: 'ada',
      agent: 'e2e',
      remote: '127.0.0.1',
    });
    const denied = client(make(http.url));
    const error = (await denied.request('whoami').catch((e: unknown) => e)) as TransportError;
    expect(error).toBeInstanceOf(TransportError);
    expect(error.status).toBe(401);
    expect(JSON.parse(error.body!).error.message).toBe('Unauthorized');
  });

  it('rejects an oversized request with the 413 as a TransportError', async () => {
    const { http } = await serve({ maxMessageBytes: 200 });
    const c = client(make(http.url));
    const error = (await c
      .request('add', ['x'.repeat(500), 1])
      .catch((e: unknown) => e)) as TransportError;
    expect(error).toBeInstanceOf(TransportError);
    expect(error.status).toBe(413);
    expect(JSON.parse(error.body!).error.code).toBe(-32004);
    expect(await c.request('add', [1, 1])).toBe(2);
  });

  it('a client timeout aborts the HTTP request, and the server handler sees its signal abort', async () => {
    const { http, aborted } = await serve();
    const c = client(make(http.url));
    await expect(c.request('hang', [], { timeout: 100 })).rejects.toBeDefined();
    const start = Date.now();
    while (aborted.length === 0 && Date.now() - start < 3000)
      await new Promise((r) => setTimeout(r, 10));
    expect(aborted).toHaveLength(1);
    expect(await c.request('add', [2, 2])).toBe(4);
  });

  it('fails calls when the server is gone', async () => {
    const { http } = await serve();
    const c = client(make(http.url));
    await http.close();
    await expect(c.request('add', [1, 2])).rejects.toBeInstanceOf(TransportError);
  });

  it('keeps big integer ids and many concurrent calls apart', async () => {
    const { http } = await serve();
    const c = client(make(http.url));
    const answers = await Promise.all(
      Array.from({ length: 50 }, (_, i) => c.request('add', [i, i])),
    );
    expect(answers).toEqual(Array.from({ length: 50 }, (_, i) => 2 * i));
  });
});

describe('fetch handler × client', () => {
  it('serves a real Request from the client through a fetch function', async () => {
    const { server } = makeServer();
    const handler = createFetchHandler(server);
    const c = client(
      createFetchTransport({
        url: 'http://in-process.test/rpc',
        fetch: (input, init) => handler(new Request(input, init)),
      }),
    );
    expect(await c.request('add', [20, 22])).toBe(42);
    expect(await c.request('whoami')).toMatchObject({ kind: 'http' });
    await expect(c.notify('note')).resolves.toBeUndefined();
  });
});
