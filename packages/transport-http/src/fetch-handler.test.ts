import { setTimeout as sleep } from 'node:timers/promises';
import type { TransportContext } from '@jsonrpc-kit/core';
import { describe, expect, it, vi } from 'vitest';
import { echoServer } from '../test/helpers.js';
import { DISCARD_BYTES } from './constants.js';
import { createFetchHandler } from './fetch-handler.js';
import { HttpError } from './http-error.js';

const ping = '{"jsonrpc":"2.0","id":1,"method":"echo","params":["ping"]}';
const pong = '{"jsonrpc":"2.0","id":1,"result":["ping"]}';
const url = 'http://rpc.example/rpc';

function post(
  body: BodyInit | null,
  headers: Record<string, string> = { 'content-type': 'application/json' },
): Request {
  return new Request(url, { method: 'POST', headers, body, duplex: 'half' } as RequestInit);
}

/** A stream that yields the given chunks, then stays open when `stall` is set. */
function stream(chunks: Uint8Array[], stall = false): ReadableStream<Uint8Array> {
  let i = 0;
  return new ReadableStream({
    pull(controller) {
      if (i < chunks.length) controller.enqueue(chunks[i++]!);
      else if (!stall) controller.close();
      else return new Promise(() => {});
      return undefined;
    },
  });
}

describe('createFetchHandler', () => {
  it('answers 200 with the server answer and a JSON content type', async () => {
    const res = await createFetchHandler(echoServer())(post(ping));
    expect(res).toBeInstanceOf(Response);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('application/json');
    expect(await res.text()).toBe(pong);
  });

  it('answers 204 with no body for notifications', async () => {
    const res = await createFetchHandler(echoServer())(post('{"jsonrpc":"2.0","method":"n"}'));
    expect(res.status).toBe(204);
    expect(res.body).toBeNull();
    expect(res.headers.get('content-type')).toBeNull();
  });

  it.each(['GET', 'PUT', 'DELETE', 'OPTIONS'])(
    'answers %s with 405 and Allow: POST',
    async (method) => {
      const server = echoServer();
      const res = await createFetchHandler(server)(new Request(url, { method }));
      expect(res.status).toBe(405);
      expect(res.headers.get('allow')).toBe('POST');
      expect(res.headers.get('content-type')).toBe('application/json');
      expect((await res.json()).error.code).toBe(-32600);
      expect(server.texts).toEqual([]);
    },
  );

  it('answers non-JSON content types with 415 and accepts the JSON ones', async () => {
    const handler = createFetchHandler(echoServer());
    expect((await handler(post(ping, { 'content-type': 'text/plain' }))).status).toBe(415);
    expect((await handler(post(ping, { 'content-type': 'application/json-rpc' }))).status).toBe(
      200,
    );
    // A byte body gets no content type from fetch: refused by default (a cross-origin page could
    // send it without a preflight), accepted with requireJsonContentType: false.
    expect((await handler(post(new TextEncoder().encode(ping), {}))).status).toBe(415);
    const lax = createFetchHandler(echoServer(), { requireJsonContentType: false });
    expect((await lax(post(new TextEncoder().encode(ping), {}))).status).toBe(200);
    // fetch labels a string body text/plain when the caller names no type: refused.
    expect((await handler(post(ping, {}))).status).toBe(415);
  });

  it("adopts the server's limit, and hands its own limit to the server with each exchange", async () => {
    const server = Object.assign(echoServer(), { maxMessageBytes: 10 });
    expect((await createFetchHandler(server)(post(ping))).status).toBe(413);
    const wide = createFetchHandler(server, { maxMessageBytes: 1000 });
    expect((await wide(post(ping))).status).toBe(200);
    expect(server.contexts[0]?.maxMessageBytes).toBe(1000);
  });

  it('answers 413 when Content-Length says too much', async () => {
    const server = echoServer();
    const res = await createFetchHandler(server, { maxMessageBytes: 10 })(post(ping));
    expect(res.status).toBe(413);
    expect(await res.json()).toEqual({
      jsonrpc: '2.0',
      id: null,
      error: { code: -32004, message: 'Request too large', data: { maxRequestBytes: 10 } },
    });
    expect(server.texts).toEqual([]);
  });

  it('answers 413 while streaming a body without length, drains a bounded amount, then cancels', async () => {
    let pulled = 0;
    let cancelled = false;
    const chunk = 64 * 1024;
    const body = new ReadableStream<Uint8Array>({
      pull(controller) {
        pulled++;
        controller.enqueue(new Uint8Array(chunk).fill(0x20));
      },
      cancel() {
        cancelled = true;
      },
    });
    const server = echoServer();
    const res = await createFetchHandler(server, { maxMessageBytes: 100 })(post(body));
    expect(res.status).toBe(413);
    expect(server.texts).toEqual([]);
    for (let i = 0; i < 200 && !cancelled; i++) await sleep(10);
    expect(cancelled).toBe(true);
    // Read on past the limit (the client may still be writing), but never past DISCARD_BYTES.
    expect(pulled * chunk).toBeGreaterThan(1024 * 1024);
    expect(pulled * chunk).toBeLessThanOrEqual(DISCARD_BYTES + 3 * chunk);
  });

  it('reads a streamed body and decodes UTF-8 split across chunks', async () => {
    const bytes = new TextEncoder().encode(
      '{"jsonrpc":"2.0","id":1,"method":"echo","params":["€"]}',
    );
    const cut = bytes.indexOf(0xe2) + 1;
    const res = await createFetchHandler(echoServer())(
      post(stream([bytes.subarray(0, cut), bytes.subarray(cut)])),
    );
    expect((await res.json()).result).toEqual(['€']);
  });

  it('answers 408 to a stalled body', async () => {
    const started = Date.now();
    const res = await createFetchHandler(echoServer(), { bodyTimeout: 100 })(
      post(stream([new TextEncoder().encode('{"json')], true)),
    );
    expect(res.status).toBe(408);
    expect(Date.now() - started).toBeGreaterThanOrEqual(90);
  });

  it('answers 500 when server.handle rejects', async () => {
    const onError = vi.fn();
    const res = await createFetchHandler(echoServer(), { onError })(
      post('{"jsonrpc":"2.0","id":1,"method":"boom"}'),
    );
    expect(res.status).toBe(500);
    expect((await res.json()).error.code).toBe(-32603);
    expect(onError).toHaveBeenCalledOnce();
  });

  it('passes the context: headers, url, method, remote address, the request signal', async () => {
    const server = echoServer();
    const controller = new AbortController();
    const request = new Request(url, {
      method: 'POST',
      headers: { 'X-Trace': 'abc', 'content-type': 'application/json' },
      body: ping,
      signal: controller.signal,
    });
    await createFetchHandler(server)(request, { remoteAddress: '10.0.0.1' });
    const ctx = server.contexts[0]!;
    expect(ctx.kind).toBe('http');
    expect(ctx.headers?.['x-trace']).toBe('abc');
    expect(ctx.url).toBe(url);
    expect(ctx.httpMethod).toBe('POST');
    expect(ctx.remoteAddress).toBe('10.0.0.1');
    expect(ctx.signal?.aborted).toBe(false);
    controller.abort();
    expect(ctx.signal?.aborted).toBe(true);
  });

  it('lets handlers see the request signal abort mid-call', async () => {
    const server = echoServer();
    const controller = new AbortController();
    const request = new Request(url, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: '{"jsonrpc":"2.0","id":1,"method":"wait"}',
      signal: controller.signal,
    });
    const answer = createFetchHandler(server)(request);
    await sleep(10);
    controller.abort();
    await server.aborted;
    expect((await answer).status).toBe(200);
  });

  it('authenticates: ctx.auth, 401 and 403 with JSON-RPC bodies', async () => {
    const server = echoServer();
    const handler = createFetchHandler(server, {
      authenticate: async (ctx: TransportContext) => {
        const token = ctx.headers?.authorization;
        if (token === undefined)
          throw new HttpError(401, 'Missing token', { headers: { 'www-authenticate': 'Bearer' } });
        if (token !== 'Bearer good') return new HttpError(403);
        return { user: 'ada' };
      },
    });
    const none = await handler(post(ping));
    expect(none.status).toBe(401);
    expect(none.headers.get('www-authenticate')).toBe('Bearer');
    expect(none.headers.get('content-type')).toBe('application/json');
    expect((await none.json()).error).toEqual({ code: -32000, message: 'Missing token' });
    const bad = await handler(
      post(ping, { authorization: 'Bearer bad', 'content-type': 'application/json' }),
    );
    expect(bad.status).toBe(403);
    const good = await handler(
      post(ping, { authorization: 'Bearer good', 'content-type': 'application/json' }),
    );
    expect(good.status).toBe(200);
    expect(server.contexts.map((c) => c.auth)).toEqual([{ user: 'ada' }]);
  });

  it('answers CORS preflights and adds CORS headers to answers', async () => {
    const handler = createFetchHandler(echoServer(), { cors: { origin: 'https://app.example' } });
    const pre = await handler(
      new Request(url, {
        method: 'OPTIONS',
        headers: { origin: 'https://app.example', 'access-control-request-method': 'POST' },
      }),
    );
    expect(pre.status).toBe(204);
    expect(pre.headers.get('access-control-allow-origin')).toBe('https://app.example');
    expect(pre.headers.get('access-control-allow-methods')).toBe('POST, OPTIONS');
    const res = await handler(
      post(ping, { origin: 'https://app.example', 'content-type': 'application/json' }),
    );
    expect(res.headers.get('access-control-allow-origin')).toBe('https://app.example');
    expect(res.headers.get('vary')).toBe('Origin');
    const other = await handler(
      post(ping, { origin: 'https://evil.example', 'content-type': 'application/json' }),
    );
    expect(other.headers.get('access-control-allow-origin')).toBeNull();
  });
});

describe('the streaming body limit, at its boundary', () => {
  /** A body of exactly `n` bytes, sent without Content-Length in two chunks. */
  function exactly(n: number): ReadableStream<Uint8Array> {
    const text = `[${' '.repeat(n - 2)}]`;
    const bytes = new TextEncoder().encode(text);
    return stream([bytes.subarray(0, 7), bytes.subarray(7)]);
  }

  it('reads a body of exactly maxMessageBytes, refuses one byte more (413)', async () => {
    const server = echoServer();
    const handler = createFetchHandler(server, { maxMessageBytes: 100 });
    expect((await handler(post(exactly(100)))).status).toBe(200);
    expect(server.texts).toHaveLength(1);
    expect((await handler(post(exactly(101)))).status).toBe(413);
    expect(server.texts).toHaveLength(1);
  });
});
