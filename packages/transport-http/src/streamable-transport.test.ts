import { createClient } from '@jsonrpc-kit/client';
import type { JsonRpcNotification } from '@jsonrpc-kit/core';
import { createServer } from '@jsonrpc-kit/server';
import { afterEach, describe, expect, it } from 'vitest';
import { closeAll, serve, until } from '../test/helpers.js';
import type { StreamableHttpHandlerOptions } from './streamable-handler.js';
import { createStreamableHttpNodeHandler } from './streamable-node.js';
import { createStreamableHttpTransport } from './streamable-transport.js';

const closers: (() => Promise<unknown>)[] = [];
afterEach(async () => {
  for (const close of closers.splice(0).reverse()) await close();
  await closeAll();
});

async function start(options: StreamableHttpHandlerOptions = {}): Promise<string> {
  const server = createServer();
  server.method('initialize', () => ({ protocolVersion: '2025-06-18' }));
  server.method('add', ([a, b]: [number, number]) => a + b);
  server.method('slow', async (params: { progressToken: number }, ctx) => {
    for (let i = 1; i <= 3; i++) {
      await ctx.peer!.notify('progress', { progressToken: params.progressToken, progress: i });
    }
    return 'done';
  });
  server.method('paced', async (params: { progressToken: number }, ctx) => {
    for (let i = 1; i <= 3; i++) {
      await new Promise((resolve) => setTimeout(resolve, 20));
      await ctx.peer!.notify('progress', { progressToken: params.progressToken, progress: i });
    }
    return 'done';
  });
  server.method('ask', async (_params: unknown, ctx) => ctx.peer!.request('whoami'));
  server.method('push', (_params: unknown, ctx) => {
    setTimeout(() => void ctx.peer!.notify('pushed', ['hello']).catch(() => {}), 20);
    return 'ok';
  });
  const handler = createStreamableHttpNodeHandler(server, options);
  closers.push(() => handler.close());
  const { url } = await serve(handler);
  return url;
}

describe('createStreamableHttpTransport against the kit handler', () => {
  it('keeps the session, reads JSON and event-stream answers, delivers progress first', async () => {
    const url = await start();
    const notes: JsonRpcNotification[] = [];
    const transport = createStreamableHttpTransport({ url });
    const client = createClient(transport, { onNotification: (n) => void notes.push(n) });
    closers.push(() => client.close());
    await client.request('initialize', { protocolVersion: '2025-06-18' });
    expect(transport.sessionId).toMatch(/^[A-Za-z0-9_-]{22}$/);
    expect(await client.request('add', [2, 3])).toBe(5);
    expect(await client.request('slow', { progressToken: 1 })).toBe('done');
    expect(notes.map((n) => n.params)).toEqual([
      { progressToken: 1, progress: 1 },
      { progressToken: 1, progress: 2 },
      { progressToken: 1, progress: 3 },
    ]);
  });

  it('answers a server→client request with a POST', async () => {
    const url = await start();
    const client = createClient(createStreamableHttpTransport({ url }), {
      onRequest: (request) => (request.method === 'whoami' ? 'kit-client' : undefined),
    });
    closers.push(() => client.close());
    await client.request('initialize', {});
    expect(await client.request('ask')).toBe('kit-client');
  });

  it('opens the GET stream when asked and receives push', async () => {
    const url = await start();
    const pushed: unknown[] = [];
    const client = createClient(createStreamableHttpTransport({ url, stream: true }), {
      onNotification: (n) => void pushed.push(n.params),
    });
    closers.push(() => client.close());
    await client.request('initialize', {});
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(await client.request('push')).toBe('ok');
    await until(() => pushed.length === 1);
    expect(pushed).toEqual([['hello']]);
  });

  it('drops an expired session on 404 and starts a new one with the next initialize', async () => {
    const url = await start({ sessions: { idleTimeout: 200 } });
    let expired = 0;
    const transport = createStreamableHttpTransport({ url, onSessionExpired: () => expired++ });
    const client = createClient(transport);
    closers.push(() => client.close());
    await client.request('initialize', {});
    const first = transport.sessionId;
    await new Promise((resolve) => setTimeout(resolve, 600));
    await expect(client.request('add', [1, 1])).rejects.toMatchObject({ code: 'TRANSPORT_ERROR' });
    expect(expired).toBe(1);
    expect(transport.sessionId).toBeUndefined();
    await client.request('initialize', {});
    expect(transport.sessionId).not.toBe(first);
    expect(await client.request('add', [1, 1])).toBe(2);
  });

  it('resumes a dropped answer stream with Last-Event-ID', async () => {
    const url = await start({ responseMode: 'sse' });
    const notes: unknown[] = [];
    const lastIds: (string | null)[] = [];
    let dropped = 0;
    const dropping = async (input: string, init: RequestInit): Promise<Response> => {
      const response = await fetch(input, init);
      if (init.method === 'GET') lastIds.push(new Headers(init.headers).get('last-event-id'));
      if (dropped > 0 || !String(init.body).includes('"paced"') || response.body === null)
        return response;
      dropped++;
      const reader = response.body.getReader();
      let passed = 0;
      const cut = new ReadableStream<Uint8Array>(
        {
          async pull(controller) {
            // One chunk goes through; the next pull finds the connection gone.
            if (passed++ > 0) {
              await reader.cancel();
              controller.error(new TypeError('connection dropped'));
              return;
            }
            const { done, value } = await reader.read();
            if (done) controller.close();
            else controller.enqueue(value);
          },
        },
        { highWaterMark: 0 },
      );
      return new Response(cut, { status: response.status, headers: response.headers });
    };
    const client = createClient(
      createStreamableHttpTransport({ url, fetch: dropping, reconnect: { delay: 10 } }),
      { onNotification: (n) => void notes.push(n.params) },
    );
    closers.push(() => client.close());
    await client.request('initialize', {});
    expect(await client.request('paced', { progressToken: 9 })).toBe('done');
    expect(dropped).toBe(1);
    expect(lastIds).toHaveLength(1);
    expect(lastIds[0]).toMatch(/_\d+$/);
    expect(notes).toEqual([
      { progressToken: 9, progress: 1 },
      { progressToken: 9, progress: 2 },
      { progressToken: 9, progress: 3 },
    ]);
  });

  it('starts one session when several first requests go out at once', async () => {
    const server = createServer();
    server.method('add', ([a, b]: [number, number]) => a + b);
    const handler = createStreamableHttpNodeHandler(server, { sessions: { startMethod: null } });
    closers.push(() => handler.close());
    const { url } = await serve(handler);
    const transport = createStreamableHttpTransport({ url });
    const client = createClient(transport);
    closers.push(() => client.close());
    const sums = await Promise.all([1, 2, 3, 4].map((n) => client.request('add', [n, n])));
    expect(sums).toEqual([2, 4, 6, 8]);
    expect(handler.sessions).toBe(1);
    expect(transport.sessionId).toBeDefined();
  });

  it('backs off, then gives up, when the GET stream keeps ending at once', async () => {
    const url = await start();
    let gets = 0;
    const ending = async (input: string, init: RequestInit): Promise<Response> => {
      if (init.method !== 'GET') return fetch(input, init);
      gets++;
      return new Response('', { status: 200, headers: { 'content-type': 'text/event-stream' } });
    };
    const errors: Error[] = [];
    const client = createClient(
      createStreamableHttpTransport({
        url,
        fetch: ending,
        stream: true,
        reconnect: { delay: 5, maxAttempts: 3 },
      }),
      { onError: (error) => void errors.push(error) },
    );
    closers.push(() => client.close());
    await client.request('initialize', {});
    await until(() => errors.some((e) => e.message.includes('gave up')));
    // The first attempt and three retries (5, 10, 20 ms apart), not a tight loop.
    expect(gets).toBe(4);
  });

  it('waits the reconnect delay before opening the GET stream again after one that carried an event', async () => {
    const url = await start();
    let gets = 0;
    // A server (or a proxy) that ends the stream after each event.
    const oneEach = async (input: string, init: RequestInit): Promise<Response> => {
      if (init.method !== 'GET') return fetch(input, init);
      gets++;
      await new Promise((resolve) => setTimeout(resolve, 0));
      const event = `id: ${gets}\ndata: {"jsonrpc":"2.0","method":"tick"}\n\n`;
      return new Response(event, { status: 200, headers: { 'content-type': 'text/event-stream' } });
    };
    const client = createClient(
      createStreamableHttpTransport({
        url,
        fetch: oneEach,
        stream: true,
        reconnect: { delay: 50, maxAttempts: 3 },
      }),
      {},
    );
    closers.push(() => client.close());
    await client.request('initialize', {});
    await until(() => gets >= 2);
    await new Promise((resolve) => setTimeout(resolve, 200));
    // One every 50 ms at most, never given up on (each stream carried something).
    expect(gets).toBeLessThanOrEqual(8);
    const before = gets;
    await until(() => gets > before);
  });

  it('drops a GET stream whose event grows past maxMessageBytes, and counts it a failed attempt', async () => {
    const url = await start();
    let gets = 0;
    const huge = `id: 1\ndata: ${'x'.repeat(2_000)}\n\n`;
    const growing = async (input: string, init: RequestInit): Promise<Response> => {
      if (init.method !== 'GET') return fetch(input, init);
      gets++;
      return new Response(huge, { status: 200, headers: { 'content-type': 'text/event-stream' } });
    };
    const errors: Error[] = [];
    const client = createClient(
      createStreamableHttpTransport({
        url,
        fetch: growing,
        stream: true,
        maxMessageBytes: 1_000,
        reconnect: { delay: 5, maxAttempts: 2 },
      }),
      { onError: (error) => void errors.push(error) },
    );
    closers.push(() => client.close());
    await client.request('initialize', {});
    await until(() => errors.some((e) => e.message.includes('gave up')));
    expect(gets).toBe(3);
    expect(
      errors.filter(
        (e) => e.message === 'HTTP event stream: an event over maxMessageBytes (1000 characters)',
      ),
    ).toHaveLength(3);
  });

  it('ends the session with DELETE', async () => {
    const url = await start();
    const transport = createStreamableHttpTransport({ url });
    const client = createClient(transport);
    closers.push(() => client.close());
    await client.request('initialize', {});
    await transport.endSession();
    expect(transport.sessionId).toBeUndefined();
  });
});

describe('Streamable HTTP client against a server that answers something else', () => {
  it('fails a request at once when the JSON that came back does not answer it', async () => {
    let answer = '';
    const { url } = await serve((req, res) => {
      req.resume();
      req.on('end', () => res.writeHead(200, { 'content-type': 'application/json' }).end(answer));
    });
    const transport = createStreamableHttpTransport({ url, stream: false });
    const client = createClient(transport, { callTimeout: 5000 });
    closers.push(() => client.close());
    for (const [body, message] of [
      [
        '{"jsonrpc":"2.0","id":999,"result":3}',
        /^HTTP 200 answer holds no answer to the request with id \d+/,
      ],
      ['{"jsonrpc":"2.0","id":', /^HTTP 200 answer is not JSON/],
    ] as const) {
      answer = body;
      const started = Date.now();
      await expect(client.request('add', [1, 2])).rejects.toMatchObject({
        name: 'TransportError',
        message,
      });
      // At once, not when the request times out.
      expect(Date.now() - started).toBeLessThan(2000);
    }
  });

  it('fails the requests of a batch its JSON answer or its event stream leaves out', async () => {
    let stream = false;
    const { url } = await serve((req, res) => {
      let body = '';
      req.on('data', (chunk: Buffer) => {
        body += chunk;
      });
      req.on('end', () => {
        // Answers the first request of the batch only.
        const [first] = (JSON.parse(body) as { id?: number }[]).filter((m) => 'id' in m);
        const answer = `{"jsonrpc":"2.0","id":${first!.id},"result":"first"}`;
        if (!stream) {
          res.writeHead(200, { 'content-type': 'application/json' }).end(`[${answer}]`);
          return;
        }
        res.writeHead(200, { 'content-type': 'text/event-stream' });
        res.end(`data: {"jsonrpc":"2.0","method":"note"}\n\ndata: ${answer}\n\n`);
      });
    });
    const client = createClient(createStreamableHttpTransport({ url, stream: false }), {
      callTimeout: 5000,
    });
    closers.push(() => client.close());
    for (stream of [false, true]) {
      const started = Date.now();
      const results = await client.batch((b) => [b.request('a'), b.notify('n'), b.request('b')]);
      // At once, not when the requests time out.
      expect(Date.now() - started).toBeLessThan(2000);
      expect(results[0]).toEqual({ ok: true, value: 'first' });
      expect(results[1]).toMatchObject({
        ok: false,
        error: {
          name: 'TransportError',
          message: expect.stringMatching(
            stream
              ? /^HTTP 200 event stream ended without an answer to the request with id \d+/
              : /^HTTP 200 answer holds no answer to the request with id \d+/,
          ),
        },
      });
      expect(client.pending).toBe(0);
    }
  });

  it('fails a request when its event stream ends or drops without its answer', async () => {
    let mode = '';
    const { url } = await serve((req, res) => {
      let body = '';
      req.on('data', (chunk: Buffer) => {
        body += chunk;
      });
      req.on('end', () => {
        const { id } = JSON.parse(body) as { id: number };
        res.writeHead(200, { 'content-type': 'text/event-stream' });
        res.write('data: {"jsonrpc":"2.0","method":"note"}\n\n');
        if (mode === 'answer') res.end(`data: {"jsonrpc":"2.0","id":${id},"result":7}\n\n`);
        else if (mode === 'end') res.end();
        else setTimeout(() => req.socket.destroy(), 20);
      });
    });
    const client = createClient(createStreamableHttpTransport({ url, stream: false }), {
      callTimeout: 5000,
    });
    closers.push(() => client.close());
    mode = 'answer';
    expect(await client.request('add', [1, 2])).toBe(7);
    for (mode of ['end', 'drop']) {
      const started = Date.now();
      await expect(client.request('add', [1, 2])).rejects.toMatchObject({
        name: 'TransportError',
        message: expect.stringMatching(
          /^HTTP 200 event stream ended without an answer to the request with id \d+/,
        ),
      });
      expect(Date.now() - started).toBeLessThan(2000);
    }
  });

  it('drops an event stream whose event grows past maxMessageBytes, and fails what it owed', async () => {
    let written = 0;
    let closedByClient = false;
    const { url } = await serve((req, res) => {
      req.resume();
      req.on('end', () => {
        res.writeHead(200, { 'content-type': 'text/event-stream' });
        // An event that never ends: data lines with no blank line after them, more than the
        // socket's buffers hold.
        const line = `data: ${'x'.repeat(1000)}\n`;
        const pump = (): void => {
          while (!res.destroyed && written < 64_000_000 && res.write(line)) written += line.length;
          if (!res.destroyed && written < 64_000_000) res.once('drain', pump);
        };
        res.on('close', () => {
          closedByClient = written < 64_000_000;
        });
        pump();
      });
    });
    const client = createClient(
      createStreamableHttpTransport({ url, stream: false, maxMessageBytes: 50_000 }),
      { callTimeout: 5000 },
    );
    closers.push(() => client.close());
    await expect(client.request('add', [1, 2])).rejects.toMatchObject({
      name: 'TransportError',
      message: expect.stringMatching(
        /^HTTP 200 event stream: an event over maxMessageBytes \(50000 characters\)/,
      ),
    });
    // The client let go of the stream: the server could not write it all.
    await until(() => closedByClient);
    expect(written).toBeLessThan(64_000_000);
  });
});
