import type { IncomingMessage, ServerResponse } from 'node:http';
import { setTimeout as sleep } from 'node:timers/promises';
import {
  AbortError,
  ConnectionClosedError,
  TimeoutError,
  type Transport,
  TransportError,
  type TransportHandler,
} from '@jsonrpc-kit/core';
import { Agent } from 'undici';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { closeAll, serve } from '../test/helpers.js';
import { createHttpTransport as createFetchTransport } from './http-transport.js';
import {
  createHttpTransport as createNodeTransport,
  type NodeHttpTransportOptions,
} from './node-transport.js';

interface Seen {
  method: string;
  url: string;
  headers: IncomingMessage['headers'];
  body: string;
}

const hanging = new Set<ServerResponse>();
let active = 0;
let maxActive = 0;
const transports: Transport[] = [];

afterEach(async () => {
  await Promise.all(transports.splice(0).map((t) => t.close()));
  for (const res of hanging) res.destroy();
  hanging.clear();
  await closeAll();
});

/** A raw node:http server whose path picks the answer. */
/**
 * What the test server answers: a request's params back as its result, with its id exactly as
 * sent; anything else (a notification) as it came.
 */
function answerTo(text: string): string {
  const call = /^\{"jsonrpc":"2\.0","id":([^,]+),"method":"[^"]*"(?:,"params":(.*))?\}$/s.exec(
    text,
  );
  return call === null ? text : `{"jsonrpc":"2.0","id":${call[1]},"result":${call[2] ?? 'null'}}`;
}

async function rawServer(): Promise<{
  url: string;
  seen: Seen[];
  server: import('node:http').Server;
}> {
  const seen: Seen[] = [];
  const { url, server } = await serve((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const body = Buffer.concat(chunks).toString('utf8');
      seen.push({ method: req.method ?? '', url: req.url ?? '', headers: req.headers, body });
      switch (req.url) {
        case '/ok':
          res.writeHead(200, { 'content-type': 'application/json' }).end(answerTo(body));
          return;
        case '/204':
          res.writeHead(204).end();
          return;
        case '/empty200':
          res.writeHead(200, { 'content-type': 'application/json' }).end();
          return;
        case '/202':
          res.writeHead(202).end();
          return;
        case '/500':
          res.writeHead(500, { 'content-type': 'text/plain' }).end('upstream exploded');
          return;
        case '/401':
          res
            .writeHead(401, { 'content-type': 'application/json' })
            .end('{"jsonrpc":"2.0","id":null,"error":{"code":-32000,"message":"Unauthorized"}}');
          return;
        case '/garbage':
          res.writeHead(200, { 'content-type': 'text/html' }).end('<html>proxy error</html>');
          return;
        case '/cut':
          res.writeHead(200, { 'content-type': 'application/json' }).end('{"jsonrpc":"2.0","id":');
          return;
        case '/other-id':
          res
            .writeHead(200, { 'content-type': 'application/json' })
            .end('{"jsonrpc":"2.0","id":999,"result":3}');
          return;
        case '/null-id':
          res
            .writeHead(200, { 'content-type': 'application/json' })
            .end('{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"Parse error"}}');
          return;
        case '/hang':
          hanging.add(res);
          return;
        case '/slow':
          active++;
          maxActive = Math.max(maxActive, active);
          setTimeout(() => {
            active--;
            res.writeHead(200).end(answerTo(body));
          }, 150);
          return;
        default:
          res.writeHead(404).end();
      }
    });
  });
  return { url, seen, server };
}

function recorder(): TransportHandler & { messages: string[]; closes: number; errors: Error[] } {
  const r = {
    messages: [] as string[],
    closes: 0,
    errors: [] as Error[],
    onMessage: (m: string) => r.messages.push(m),
    onClose: () => {
      r.closes++;
    },
    onError: (e: Error) => r.errors.push(e),
  };
  return r;
}

const request = '{"jsonrpc":"2.0","id":1,"method":"add","params":[1,2]}';

type Make = (options: NodeHttpTransportOptions) => Transport;
const paths: [string, Make][] = [
  ['undici (node entry)', (o) => createNodeTransport(o)],
  ['fetch (default entry)', (o) => createFetchTransport(o)],
  [
    'node entry with options.fetch',
    (o) => createNodeTransport({ ...o, fetch: (i, init) => fetch(i, init) }),
  ],
];

describe.each(paths)('createHttpTransport: %s', (_name, make) => {
  const open = (options: NodeHttpTransportOptions): Transport => {
    const t = make(options);
    transports.push(t);
    return t;
  };

  it('POSTs the exact text as JSON and delivers a 200 body to onMessage', async () => {
    const { url, seen } = await rawServer();
    const t = open({ url: new URL('/ok', url) });
    const h = recorder();
    await t.start(h);
    await t.send(request);
    expect(h.messages).toEqual([answerTo(request)]);
    expect(seen).toHaveLength(1);
    expect(seen[0]!.method).toBe('POST');
    expect(seen[0]!.body).toBe(request);
    expect(seen[0]!.headers['content-type']).toBe('application/json');
    expect(seen[0]!.headers.accept).toBe('application/json');
  });

  it('keeps multibyte text intact both ways', async () => {
    const { url } = await rawServer();
    const t = open({ url: `${url}ok` });
    const h = recorder();
    await t.start(h);
    const text = '{"jsonrpc":"2.0","id":1,"method":"m","params":["€😀 ü"]}';
    await t.send(text);
    expect(h.messages).toEqual([answerTo(text)]);
  });

  it.each(['/204', '/empty200', '/202'])('completes quietly on %s', async (path) => {
    const { url } = await rawServer();
    const t = open({ url: new URL(path, url) });
    const h = recorder();
    await t.start(h);
    await expect(t.send('{"jsonrpc":"2.0","method":"n"}')).resolves.toBeUndefined();
    expect(h.messages).toEqual([]);
  });

  it('rejects a non-2xx answer with TransportError carrying status and body', async () => {
    const { url } = await rawServer();
    const t = open({ url: new URL('/500', url) });
    await t.start(recorder());
    const error = await t.send(request).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(TransportError);
    expect((error as TransportError).code).toBe('TRANSPORT_ERROR');
    expect((error as TransportError).status).toBe(500);
    expect((error as TransportError).body).toBe('upstream exploded');
    const auth = open({ url: new URL('/401', url) });
    await auth.start(recorder());
    const denied = (await auth.send(request).catch((e: unknown) => e)) as TransportError;
    expect(denied.status).toBe(401);
    expect(JSON.parse(denied.body!).error.code).toBe(-32000);
  });

  it('rejects a 200 body that is not JSON, and delivers nothing', async () => {
    const { url } = await rawServer();
    const t = open({ url: new URL('/garbage', url) });
    const h = recorder();
    await t.start(h);
    const error = (await t.send(request).catch((e: unknown) => e)) as TransportError;
    expect(error).toBeInstanceOf(TransportError);
    expect(error.status).toBe(200);
    expect(error.body).toBe('<html>proxy error</html>');
    expect(h.messages).toEqual([]);
  });

  it('rejects a request whose 200 body holds no answer to it, after delivering the body', async () => {
    const { url } = await rawServer();
    for (const [path, message] of [
      ['/cut', 'HTTP 200 answer is not JSON'],
      ['/other-id', 'HTTP 200 answer holds no answer to the request with id 1'],
    ] as const) {
      const t = open({ url: new URL(path, url) });
      const h = recorder();
      await t.start(h);
      const error = (await t.send(request).catch((e: unknown) => e)) as TransportError;
      expect(error).toBeInstanceOf(TransportError);
      expect(error.message).toBe(message);
      expect(error.status).toBe(200);
      // Delivered all the same: what it does answer settles; the owner sees it.
      expect(h.messages).toHaveLength(1);
      // A notification is owed nothing.
      await expect(t.send('{"jsonrpc":"2.0","method":"n"}')).resolves.toBeUndefined();
    }
    // An answer with id null is the client's to match (it fails the one request it can be).
    const t = open({ url: new URL('/null-id', url) });
    await t.start(recorder());
    await expect(t.send(request)).resolves.toBeUndefined();
  });

  it('rejects with TransportError and a cause when the server is unreachable', async () => {
    const { url, server } = await serve(() => {});
    await new Promise<void>((resolve) => server.close(() => resolve()));
    const t = open({ url });
    await t.start(recorder());
    const error = (await t.send(request).catch((e: unknown) => e)) as TransportError;
    expect(error).toBeInstanceOf(TransportError);
    expect(error.status).toBeUndefined();
    expect(error.cause).toBeDefined();
  });

  it('aborts the HTTP request when the transport timeout passes', async () => {
    const { url, seen } = await rawServer();
    const t = open({ url: new URL('/hang', url), timeout: 100 });
    await t.start(recorder());
    const started = Date.now();
    const error = await t.send(request).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(TimeoutError);
    expect(Date.now() - started).toBeGreaterThanOrEqual(90);
    expect(Date.now() - started).toBeLessThan(2000);
    expect(seen).toHaveLength(1);
    // The server sees the request go away.
    const res = [...hanging][0]!;
    await vi.waitFor(
      () => expect(res.destroyed || res.socket === null || res.socket.destroyed).toBe(true),
      {
        timeout: 2000,
      },
    );
  });

  it('answers in time when the server is faster than the timeout', async () => {
    const { url } = await rawServer();
    const t = open({ url: new URL('/slow', url), timeout: 2000 });
    const h = recorder();
    await t.start(h);
    await t.send(request);
    expect(h.messages).toEqual([answerTo(request)]);
  });

  it('aborts the HTTP request when the send signal aborts', async () => {
    const { url } = await rawServer();
    const t = open({ url: new URL('/hang', url) });
    await t.start(recorder());
    const controller = new AbortController();
    const sent = t.send(request, { signal: controller.signal });
    await sleep(50);
    controller.abort();
    await expect(sent).rejects.toBeInstanceOf(AbortError);
    await expect(t.send(request, { signal: controller.signal })).rejects.toBeInstanceOf(AbortError);
  });

  it('close() rejects exchanges in flight and later sends, and calls onClose once', async () => {
    const { url } = await rawServer();
    const t = open({ url: new URL('/hang', url) });
    const h = recorder();
    await t.start(h);
    const inFlight = t.send(request).catch((e: unknown) => e);
    await sleep(50);
    await Promise.all([t.close(), t.close()]);
    expect(await inFlight).toBeInstanceOf(ConnectionClosedError);
    await expect(t.send(request)).rejects.toBeInstanceOf(ConnectionClosedError);
    await t.close();
    expect(h.closes).toBe(1);
  });

  it('sends fixed headers and fresh headers from a function', async () => {
    const { url, seen } = await rawServer();
    const fixed = open({
      url: new URL('/ok', url),
      headers: { Authorization: 'Bearer a', 'Content-Type': 'application/json-rpc' },
    });
    await fixed.start(recorder());
    await fixed.send(request);
    expect(seen[0]!.headers.authorization).toBe('Bearer a');
    expect(seen[0]!.headers['content-type']).toBe('application/json-rpc');
    let n = 0;
    const fresh = open({
      url: new URL('/ok', url),
      headers: async () => ({ authorization: `Bearer ${++n}` }),
    });
    await fresh.start(recorder());
    await fresh.send(request);
    await fresh.send(request);
    expect(seen.slice(1).map((s) => s.headers.authorization)).toEqual(['Bearer 1', 'Bearer 2']);
    const sync = open({ url: new URL('/ok', url), headers: () => ({ 'x-sync': 'yes' }) });
    await sync.start(recorder());
    await sync.send(request);
    expect(seen[3]!.headers['x-sync']).toBe('yes');
  });

  it('rejects with TransportError when the headers function fails', async () => {
    const { url, seen } = await rawServer();
    const t = open({
      url: new URL('/ok', url),
      headers: () => {
        throw new Error('no token');
      },
    });
    await t.start(recorder());
    await expect(t.send(request)).rejects.toBeInstanceOf(TransportError);
    const u = open({
      url: new URL('/ok', url),
      headers: () => Promise.reject(new Error('no token')),
    });
    await u.start(recorder());
    await expect(u.send(request)).rejects.toBeInstanceOf(TransportError);
    expect(seen).toEqual([]);
  });

  it('keeps answers that arrive before start() and delivers them on start', async () => {
    const { url } = await rawServer();
    const t = open({ url: new URL('/ok', url) });
    await t.send(request);
    const h = recorder();
    await t.start(h);
    expect(h.messages).toEqual([answerTo(request)]);
    await expect(t.start(recorder())).rejects.toThrow(/already started/);
  });

  it('sends concurrently', async () => {
    const { url, seen } = await rawServer();
    const t = open({ url: new URL('/slow', url) });
    const h = recorder();
    await t.start(h);
    maxActive = 0;
    await Promise.all(
      Array.from({ length: 5 }, (_, i) => t.send(`{"jsonrpc":"2.0","id":${i},"method":"m"}`)),
    );
    expect(maxActive).toBeGreaterThan(1);
    expect(h.messages).toHaveLength(5);
    expect(seen).toHaveLength(5);
  });

  it('reports a throwing onMessage to onError without failing the send', async () => {
    const { url } = await rawServer();
    const t = open({ url: new URL('/ok', url) });
    const h = recorder();
    h.onMessage = () => {
      throw new Error('owner bug');
    };
    await t.start(h);
    await t.send(request);
    expect(h.errors.map((e) => e.message)).toEqual(['owner bug']);
  });

  it('rejects a negative timeout', () => {
    expect(() => make({ url: 'http://127.0.0.1:1/', timeout: -1 })).toThrow(RangeError);
  });
});

describe('createHttpTransport (node entry)', () => {
  it('refuses URLs that are not http(s)', () => {
    expect(() => createNodeTransport({ url: 'ws://127.0.0.1/' })).toThrow(TypeError);
    expect(() => createNodeTransport({ url: 'not a url' })).toThrow(TypeError);
  });

  it('uses a given dispatcher and leaves it open on close', async () => {
    const { url, seen } = await rawServer();
    const agent = new Agent();
    try {
      const t = createNodeTransport({ url: new URL('/ok', url), dispatcher: agent });
      const h = recorder();
      await t.start(h);
      await t.send(request);
      await t.close();
      expect(h.messages).toEqual([answerTo(request)]);
      expect(agent.closed).toBe(false);
      expect(seen).toHaveLength(1);
    } finally {
      await agent.close();
    }
  });

  it('reuses one keep-alive connection for sequential sends', async () => {
    const { url, server } = await rawServer();
    let connections = 0;
    server.on('connection', () => connections++);
    const t = createNodeTransport({ url: new URL('/ok', url) });
    transports.push(t);
    await t.start(recorder());
    for (let i = 0; i < 20; i++) await t.send(request);
    // A pool may open a second connection while the first finishes its answer; not one per send.
    expect(connections).toBeLessThanOrEqual(2);
  });

  it('keeps the query string of the URL', async () => {
    const { url, seen } = await rawServer();
    const t = createNodeTransport({ url: `${url}ok?key=1` });
    transports.push(t);
    await t.start(recorder());
    await t.send(request).catch(() => {});
    expect(seen[0]!.url).toBe('/ok?key=1');
  });
});
