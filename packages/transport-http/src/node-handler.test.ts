import { setTimeout as sleep } from 'node:timers/promises';
import type { TransportContext } from '@jsonrpc-kit/core';
import { afterEach, describe, expect, it, vi } from 'vitest';
import {
  closeAll,
  closedWithin,
  echoServer,
  rawConnect,
  rawExchange,
  rawPost,
  readResponse,
  serve,
  until,
} from '../test/helpers.js';
import { HttpError } from './http-error.js';
import { createHttpHandler } from './node-handler.js';

afterEach(closeAll);

const ping = '{"jsonrpc":"2.0","id":1,"method":"echo","params":["ping"]}';
const pong = '{"jsonrpc":"2.0","id":1,"result":["ping"]}';

describe('createHttpHandler: status policy on raw bytes', () => {
  it('answers 200 with exactly the server answer, JSON content type and length', async () => {
    const { port } = await serve(createHttpHandler(echoServer()));
    const r = await rawExchange(port, rawPost(ping));
    expect(r.head.startsWith('HTTP/1.1 200 OK\r\n')).toBe(true);
    expect(r.headers['content-type']).toBe('application/json');
    expect(r.headers['content-length']).toBe(String(Buffer.byteLength(pong)));
    expect(r.body).toBe(pong);
  });

  it('answers JSON-RPC errors with 200 too', async () => {
    const { port } = await serve(createHttpHandler(echoServer()));
    const r = await rawExchange(port, rawPost('{not json'));
    expect(r.status).toBe(200);
    expect(JSON.parse(r.body)).toEqual({
      jsonrpc: '2.0',
      id: null,
      error: { code: -32700, message: 'Parse error' },
    });
  });

  it('answers 204 with no body and no content type when there is nothing to answer', async () => {
    const server = echoServer();
    const { port } = await serve(createHttpHandler(server));
    const r = await rawExchange(port, rawPost('{"jsonrpc":"2.0","method":"note"}'));
    expect(r.status).toBe(204);
    expect(r.body).toBe('');
    expect(r.headers['content-type']).toBeUndefined();
    expect(server.texts).toEqual(['{"jsonrpc":"2.0","method":"note"}']);
  });

  it.each(['GET', 'PUT', 'DELETE', 'PATCH', 'OPTIONS'])(
    'answers %s with 405, Allow: POST and a JSON body',
    async (method) => {
      const server = echoServer();
      const { port } = await serve(createHttpHandler(server));
      const r = await rawExchange(
        port,
        `${method} / HTTP/1.1\r\nhost: x\r\ncontent-length: 0\r\n\r\n`,
      );
      expect(r.status).toBe(405);
      expect(r.headers.allow).toBe('POST');
      expect(r.headers['content-type']).toBe('application/json');
      expect(JSON.parse(r.body).error.code).toBe(-32600);
      expect(server.texts).toEqual([]);
    },
  );

  it('answers HEAD with 405 and no body', async () => {
    const { port } = await serve(createHttpHandler(echoServer()));
    const socket = await rawConnect(port);
    const chunks: Buffer[] = [];
    socket.on('data', (c: Buffer) => chunks.push(c));
    socket.write('HEAD / HTTP/1.1\r\nhost: x\r\nconnection: close\r\n\r\n');
    await closedWithin(socket);
    const text = Buffer.concat(chunks).toString();
    expect(text.startsWith('HTTP/1.1 405')).toBe(true);
    expect(text.endsWith('\r\n\r\n')).toBe(true);
  });

  it.each([
    'application/json',
    'application/json; charset=utf-8',
    'Application/JSON;charset=UTF-8',
    'application/json; charset="utf-8"',
    'application/json-rpc',
    'application/jsonrequest',
  ])('accepts content type %s', async (type) => {
    const { port } = await serve(createHttpHandler(echoServer()));
    const r = await rawExchange(port, rawPost(ping, { 'content-type': type }));
    expect(r.status).toBe(200);
    expect(r.body).toBe(pong);
  });

  it('refuses a POST without a content type (a cross-origin no-cors POST) by default', async () => {
    const server = echoServer();
    const { port } = await serve(createHttpHandler(server));
    const r = await rawExchange(
      port,
      `POST / HTTP/1.1\r\nhost: 127.0.0.1\r\ncontent-length: ${ping.length}\r\n\r\n${ping}`,
    );
    expect(r.status).toBe(415);
    expect(JSON.parse(r.body).error.code).toBe(-32600);
    expect(server.texts).toEqual([]);
  });

  it('accepts a POST without a content type with requireJsonContentType: false', async () => {
    const { port } = await serve(
      createHttpHandler(echoServer(), { requireJsonContentType: false }),
    );
    const r = await rawExchange(
      port,
      `POST / HTTP/1.1\r\nhost: 127.0.0.1\r\ncontent-length: ${ping.length}\r\n\r\n${ping}`,
    );
    expect(r.status).toBe(200);
    expect(r.body).toBe(pong);
    // A wrong type is still refused.
    const wrong = await rawExchange(port, rawPost(ping, { 'content-type': 'text/plain' }));
    expect(wrong.status).toBe(415);
  });

  it.each([
    'text/plain',
    'application/x-www-form-urlencoded',
    'multipart/form-data; boundary=x',
    'application/json; charset=latin1',
    'application/jsonx',
    '',
  ])('answers content type %j with 415 and never dispatches', async (type) => {
    const server = echoServer();
    const { port } = await serve(createHttpHandler(server));
    const r = await rawExchange(port, rawPost(ping, { 'content-type': type }));
    expect(r.status).toBe(415);
    expect(r.headers['content-type']).toBe('application/json');
    expect(JSON.parse(r.body).error.code).toBe(-32600);
    expect(server.texts).toEqual([]);
  });

  it('lets one function replace the status policy', async () => {
    const seen: (string | undefined)[] = [];
    const handler = createHttpHandler(echoServer(), {
      status: (answer) => {
        seen.push(answer);
        return answer?.includes('"error"') ? 400 : answer === undefined ? 202 : 200;
      },
    });
    const { port } = await serve(handler);
    expect((await rawExchange(port, rawPost('nope'))).status).toBe(400);
    expect((await rawExchange(port, rawPost(ping))).status).toBe(200);
    const note = await rawExchange(port, rawPost('{"jsonrpc":"2.0","method":"n"}'));
    expect(note.status).toBe(202);
    expect(note.body).toBe('');
    expect(seen).toHaveLength(3);
  });

  it('sends no body when the policy picks 204 for an answer', async () => {
    const { port } = await serve(createHttpHandler(echoServer(), { status: () => 204 }));
    const r = await rawExchange(port, rawPost(ping));
    expect(r.status).toBe(204);
    expect(r.body).toBe('');
  });

  it('answers 500 with -32603 when server.handle rejects, and reports it', async () => {
    const onError = vi.fn();
    const { port } = await serve(createHttpHandler(echoServer(), { onError }));
    const r = await rawExchange(port, rawPost('{"jsonrpc":"2.0","id":1,"method":"boom"}'));
    expect(r.status).toBe(500);
    expect(JSON.parse(r.body)).toEqual({
      jsonrpc: '2.0',
      id: null,
      error: { code: -32603, message: 'Internal error' },
    });
    expect(r.body).not.toContain('handler bug');
    expect(onError).toHaveBeenCalledOnce();
  });

  it('answers 500 when server.handle throws synchronously', async () => {
    const handler = createHttpHandler({
      handle: () => {
        throw new Error('sync');
      },
    });
    const { port } = await serve(handler);
    expect((await rawExchange(port, rawPost(ping))).status).toBe(500);
  });

  it('prefers answer() and writes a synchronous answer in the same turn as the body', async () => {
    const handler = createHttpHandler({
      handle: () => Promise.reject(new Error('handle() should not be called')),
      answer: (text) => (text.includes('"later"') ? Promise.resolve(pong) : pong),
    });
    const endedWithBody: boolean[] = [];
    const { port } = await serve((req, res) => {
      handler(req, res);
      // Registered after the handler's own 'end' listener: runs right after it, same turn.
      req.on('end', () => endedWithBody.push(res.writableEnded));
    });
    const now = await rawExchange(port, rawPost(ping));
    const later = await rawExchange(port, rawPost('{"jsonrpc":"2.0","id":1,"method":"later"}'));
    expect([now.status, now.body, later.status, later.body]).toEqual([200, pong, 200, pong]);
    expect(endedWithBody).toEqual([true, false]);
  });

  it('answers 500 when answer() throws or rejects', async () => {
    const onError = vi.fn();
    const handler = createHttpHandler(
      {
        handle: () => Promise.resolve(pong),
        answer: (text) => {
          if (text.includes('"throw"')) throw new Error('sync');
          return Promise.reject(new Error('async'));
        },
      },
      { onError },
    );
    const { port } = await serve(handler);
    const thrown = await rawExchange(port, rawPost('{"jsonrpc":"2.0","id":1,"method":"throw"}'));
    const rejected = await rawExchange(port, rawPost(ping));
    expect([thrown.status, rejected.status]).toEqual([500, 500]);
    expect(onError).toHaveBeenCalledTimes(2);
  });

  it('serves several requests on one keep-alive connection', async () => {
    const { port } = await serve(createHttpHandler(echoServer()));
    const socket = await rawConnect(port);
    for (let i = 0; i < 3; i++) {
      const response = readResponse(socket);
      socket.write(rawPost(ping));
      const r = await response;
      expect(r.status).toBe(200);
      expect(r.body).toBe(pong);
      expect(r.closed).toBe(false);
    }
  });
});

describe('createHttpHandler: body limits', () => {
  const max = 64;
  const big = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'echo', params: ['x'.repeat(200)] });

  it('answers an honest Content-Length over the limit with 413, -32004, and closes', async () => {
    const server = echoServer();
    const { port } = await serve(createHttpHandler(server, { maxMessageBytes: max }));
    const socket = await rawConnect(port);
    const response = readResponse(socket);
    socket.write(rawPost(big));
    const r = await response;
    expect(r.status).toBe(413);
    expect(r.headers.connection).toBe('close');
    expect(r.headers['content-type']).toBe('application/json');
    expect(JSON.parse(r.body)).toEqual({
      jsonrpc: '2.0',
      id: null,
      error: { code: -32004, message: 'Request too large', data: { maxRequestBytes: max } },
    });
    expect(await closedWithin(socket)).toBe(true);
    expect(server.texts).toEqual([]);
  });

  it('answers a body of exactly the limit normally', async () => {
    const body = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'echo', params: [''] });
    const padded = body + ' '.repeat(max - body.length);
    const { port } = await serve(createHttpHandler(echoServer(), { maxMessageBytes: max }));
    expect((await rawExchange(port, rawPost(padded))).status).toBe(200);
    expect((await rawExchange(port, rawPost(padded + ' '))).status).toBe(413);
  });

  it('counts bytes, not characters', async () => {
    const body = JSON.stringify({
      jsonrpc: '2.0',
      id: 1,
      method: 'echo',
      params: ['é'.repeat(30)],
    });
    expect(body.length).toBeLessThan(100);
    expect(Buffer.byteLength(body)).toBeGreaterThan(100);
    const { port } = await serve(createHttpHandler(echoServer(), { maxMessageBytes: 100 }));
    expect((await rawExchange(port, rawPost(body))).status).toBe(413);
  });

  it('enforces the limit while streaming a chunked body, then closes', async () => {
    const server = echoServer();
    const { port } = await serve(createHttpHandler(server, { maxMessageBytes: max }));
    const socket = await rawConnect(port);
    const response = readResponse(socket);
    socket.write(
      'POST / HTTP/1.1\r\nhost: x\r\ncontent-type: application/json\r\ntransfer-encoding: chunked\r\n\r\n',
    );
    // 40 bytes per chunk: the second chunk crosses the limit; the body never ends.
    for (let i = 0; i < 3; i++) socket.write(`28\r\n${'x'.repeat(40)}\r\n`);
    const r = await response;
    expect(r.status).toBe(413);
    expect(JSON.parse(r.body).error.code).toBe(-32004);
    expect(r.headers.connection).toBe('close');
    expect(await closedWithin(socket)).toBe(true);
    expect(server.texts).toEqual([]);
  });

  it('reads a chunked body under the limit', async () => {
    const { port } = await serve(createHttpHandler(echoServer()));
    const a = ping.slice(0, 10);
    const b = ping.slice(10);
    const raw =
      'POST / HTTP/1.1\r\nhost: x\r\ncontent-type: application/json\r\ntransfer-encoding: chunked\r\n\r\n' +
      `${a.length.toString(16)}\r\n${a}\r\n${b.length.toString(16)}\r\n${b}\r\n0\r\n\r\n`;
    const r = await rawExchange(port, raw);
    expect(r.status).toBe(200);
    expect(r.body).toBe(pong);
  });

  it('decodes a multibyte character split across chunks', async () => {
    const server = echoServer();
    const { port } = await serve(createHttpHandler(server));
    const body = Buffer.from('{"jsonrpc":"2.0","id":1,"method":"echo","params":["€😀"]}');
    const cut = body.indexOf(0xe2) + 1; // inside the euro sign
    const socket = await rawConnect(port);
    const response = readResponse(socket);
    socket.write(
      `POST / HTTP/1.1\r\nhost: x\r\ncontent-type: application/json\r\ncontent-length: ${body.length}\r\n\r\n`,
    );
    socket.write(body.subarray(0, cut));
    await sleep(20);
    socket.write(body.subarray(cut, cut + 3)); // inside the emoji too
    await sleep(20);
    socket.write(body.subarray(cut + 3));
    const r = await response;
    expect(JSON.parse(r.body).result).toEqual(['€😀']);
    expect(server.texts).toEqual([body.toString('utf8')]);
  });

  it('answers a Content-Length larger than the limit at once, without waiting for a body', async () => {
    const { port } = await serve(createHttpHandler(echoServer(), { maxMessageBytes: max }));
    const socket = await rawConnect(port);
    const response = readResponse(socket, 1000);
    socket.write(
      'POST / HTTP/1.1\r\nhost: x\r\ncontent-type: application/json\r\ncontent-length: 999999999\r\n\r\n{"a"',
    );
    const r = await response;
    expect(r.status).toBe(413);
    expect(await closedWithin(socket)).toBe(true);
  });

  it('reads only Content-Length bytes when the client sends more, and stays healthy', async () => {
    const server = echoServer();
    const { port } = await serve(createHttpHandler(server, { maxMessageBytes: max }));
    const socket = await rawConnect(port);
    const chunks: Buffer[] = [];
    socket.on('data', (c: Buffer) => chunks.push(c));
    socket.write(
      `POST / HTTP/1.1\r\nhost: x\r\ncontent-type: application/json\r\ncontent-length: 10\r\n\r\n${'y'.repeat(5000)}`,
    );
    await closedWithin(socket);
    // At most the 10 announced bytes reach the handler; the rest is garbage for the HTTP parser
    // (Node answers it 400 and closes), never buffered for us.
    for (const text of server.texts) expect(text).toBe('y'.repeat(10));
    const text = Buffer.concat(chunks).toString();
    expect(text).toContain('HTTP/1.1 400');
    expect(text).not.toContain('y');
    // Still serving.
    expect((await rawExchange(port, rawPost(ping))).body).toBe(pong);
  });

  it('answers 408 to a body that stalls, while other requests are served', async () => {
    const server = echoServer();
    const { port } = await serve(createHttpHandler(server, { bodyTimeout: 1000 }));
    const stalled = await rawConnect(port);
    let answered = false;
    const stalledResponse = readResponse(stalled, 5000).finally(() => {
      answered = true;
    });
    const started = Date.now();
    stalled.write(
      'POST / HTTP/1.1\r\nhost: x\r\ncontent-type: application/json\r\ncontent-length: 50\r\n\r\n{"jsonrpc"',
    );
    // Meanwhile, others are answered, before the stalled one.
    for (let i = 0; i < 5; i++) {
      const r = await rawExchange(port, rawPost(ping));
      expect(r.body).toBe(pong);
    }
    expect(answered).toBe(false);
    const r = await stalledResponse;
    expect(Date.now() - started).toBeGreaterThanOrEqual(990);
    expect(r.status).toBe(408);
    expect(r.headers.connection).toBe('close');
    expect(JSON.parse(r.body).error.message).toBe('Request body timed out');
    expect(await closedWithin(stalled)).toBe(true);
    expect(server.texts).toHaveLength(5);
  });

  it('does not time out a body that arrives in time', async () => {
    const { port } = await serve(createHttpHandler(echoServer(), { bodyTimeout: 500 }));
    const socket = await rawConnect(port);
    const response = readResponse(socket);
    socket.write(
      `POST / HTTP/1.1\r\nhost: x\r\ncontent-type: application/json\r\ncontent-length: ${ping.length}\r\n\r\n`,
    );
    await sleep(100);
    socket.write(ping);
    expect((await response).status).toBe(200);
  });

  it('takes a body a body parser already read (req.body)', async () => {
    const server = echoServer();
    const handler = createHttpHandler(server, { maxMessageBytes: max });
    const { port } = await serve((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        const text = Buffer.concat(chunks).toString();
        (req as { body?: unknown }).body = req.url === '/text' ? text : JSON.parse(text);
        handler(req, res);
      });
    });
    expect(
      (await rawExchange(port, rawPost(ping, { 'content-type': 'application/json' }, '/text')))
        .body,
    ).toBe(pong);
    expect(
      (await rawExchange(port, rawPost(ping, { 'content-type': 'application/json' }, '/json')))
        .body,
    ).toBe(pong);
    expect(
      (await rawExchange(port, rawPost(big, { 'content-type': 'application/json' }, '/text')))
        .status,
    ).toBe(413);
  });

  it('rejects invalid limits', () => {
    expect(() => createHttpHandler(echoServer(), { maxMessageBytes: -1 })).toThrow(RangeError);
    expect(() => createHttpHandler(echoServer(), { bodyTimeout: Number.NaN })).toThrow(RangeError);
  });
});

describe('createHttpHandler: context', () => {
  it('passes kind, headers, remote address, url and method', async () => {
    const server = echoServer();
    const { port } = await serve(createHttpHandler(server));
    await rawExchange(
      port,
      rawPost(ping, { 'x-trace': 'abc', 'content-type': 'application/json' }, '/rpc?v=1'),
    );
    const ctx = server.contexts[0]!;
    expect(ctx.kind).toBe('http');
    expect(ctx.headers?.['x-trace']).toBe('abc');
    expect(ctx.remoteAddress).toBe('127.0.0.1');
    expect(ctx.url).toBe('/rpc?v=1');
    expect(ctx.httpMethod).toBe('POST');
    expect(ctx.auth).toBeUndefined();
    expect(ctx.signal?.aborted).toBe(false);
  });

  it('aborts ctx.signal when the client disconnects before the answer', async () => {
    const server = echoServer();
    const { port } = await serve(createHttpHandler(server));
    const socket = await rawConnect(port);
    socket.write(rawPost('{"jsonrpc":"2.0","id":1,"method":"wait"}'));
    await until(() => server.contexts.length === 1);
    socket.destroy();
    const reason = await Promise.race([server.aborted, sleep(2000, 'timeout')]);
    expect(reason).toBeInstanceOf(Error);
    expect(server.contexts[0]!.signal?.aborted).toBe(true);
    // Still serving.
    expect((await rawExchange(port, rawPost(ping))).body).toBe(pong);
  });

  it('gives an already aborted signal when read after the client left', async () => {
    let ctx: TransportContext | undefined;
    let release!: () => void;
    const gate = new Promise<void>((resolve) => {
      release = resolve;
    });
    const { port } = await serve(
      createHttpHandler({
        async handle(_text, context) {
          ctx = context;
          await gate;
          return undefined;
        },
      }),
    );
    const socket = await rawConnect(port);
    socket.write(rawPost(ping));
    await until(() => ctx !== undefined);
    socket.destroy();
    await sleep(50);
    expect(ctx!.signal?.aborted).toBe(true);
    release();
  });

  it('does not abort ctx.signal after a normal answer', async () => {
    const server = echoServer();
    const { port } = await serve(createHttpHandler(server));
    await rawExchange(port, rawPost(ping));
    await sleep(20);
    expect(server.contexts[0]!.signal?.aborted).toBe(false);
  });

  it('survives a client that drops mid-body', async () => {
    const server = echoServer();
    const { port } = await serve(createHttpHandler(server));
    const socket = await rawConnect(port);
    socket.write(
      'POST / HTTP/1.1\r\nhost: x\r\ncontent-type: application/json\r\ncontent-length: 100\r\n\r\n{"json',
    );
    await sleep(30);
    socket.destroy();
    await sleep(30);
    expect(server.texts).toEqual([]);
    expect((await rawExchange(port, rawPost(ping))).body).toBe(pong);
  });
});

describe('createHttpHandler: authentication', () => {
  it('puts what authenticate returns in ctx.auth', async () => {
    const server = echoServer();
    const authenticate = vi.fn((ctx: TransportContext) => ({ user: ctx.headers?.['x-user'] }));
    const { port } = await serve(createHttpHandler(server, { authenticate }));
    await rawExchange(port, rawPost(ping, { 'x-user': 'ada', 'content-type': 'application/json' }));
    expect(server.contexts[0]!.auth).toEqual({ user: 'ada' });
    expect(authenticate.mock.calls[0]![0].url).toBe('/');
  });

  it('awaits an async authenticate', async () => {
    const server = echoServer();
    const { port } = await serve(
      createHttpHandler(server, {
        authenticate: async () => {
          await sleep(10);
          return 'token-ok';
        },
      }),
    );
    expect((await rawExchange(port, rawPost(ping))).body).toBe(pong);
    expect(server.contexts[0]!.auth).toBe('token-ok');
  });

  it('answers 401 with a JSON-RPC body and extra headers when it throws HttpError(401)', async () => {
    const server = echoServer();
    const { port } = await serve(
      createHttpHandler(server, {
        authenticate: () => {
          throw new HttpError(401, 'Missing token', { headers: { 'WWW-Authenticate': 'Bearer' } });
        },
      }),
    );
    const r = await rawExchange(port, rawPost(ping));
    expect(r.status).toBe(401);
    expect(r.headers['www-authenticate']).toBe('Bearer');
    expect(r.headers['content-type']).toBe('application/json');
    expect(JSON.parse(r.body)).toEqual({
      jsonrpc: '2.0',
      id: null,
      error: { code: -32000, message: 'Missing token' },
    });
    expect(server.texts).toEqual([]);
  });

  it('answers 403 when an async authenticate rejects with HttpError(403)', async () => {
    const { port } = await serve(
      createHttpHandler(echoServer(), {
        authenticate: async () => {
          throw new HttpError(403, undefined, { code: -32099, data: { role: 'guest' } });
        },
      }),
    );
    const r = await rawExchange(port, rawPost(ping));
    expect(r.status).toBe(403);
    expect(JSON.parse(r.body).error).toEqual({
      code: -32099,
      message: 'Forbidden',
      data: { role: 'guest' },
    });
  });

  it('refuses when authenticate returns an HttpError', async () => {
    const { port } = await serve(
      createHttpHandler(echoServer(), { authenticate: () => new HttpError(403) }),
    );
    expect((await rawExchange(port, rawPost(ping))).status).toBe(403);
  });

  it('answers 401 and reports anything else thrown', async () => {
    const onError = vi.fn();
    const { port } = await serve(
      createHttpHandler(echoServer(), {
        onError,
        authenticate: () => {
          throw new Error('jwt expired at /secret/path');
        },
      }),
    );
    const r = await rawExchange(port, rawPost(ping));
    expect(r.status).toBe(401);
    expect(r.body).not.toContain('secret');
    expect(JSON.parse(r.body).error.message).toBe('Unauthorized');
    expect(onError).toHaveBeenCalledOnce();
  });

  it('keeps the connection usable after a rejection of a fully sent request', async () => {
    let calls = 0;
    const { port } = await serve(
      createHttpHandler(echoServer(), {
        authenticate: () => {
          calls++;
          if (calls === 1) throw new HttpError(401);
          return true;
        },
      }),
    );
    const socket = await rawConnect(port);
    let response = readResponse(socket);
    socket.write(rawPost(ping));
    expect((await response).status).toBe(401);
    await sleep(20);
    if (!socket.destroyed) {
      response = readResponse(socket);
      socket.write(rawPost(ping));
      expect((await response).status).toBe(200);
    }
  });
});

describe('createHttpHandler: CORS', () => {
  const preflight = (origin: string, extra = ''): string =>
    `OPTIONS / HTTP/1.1\r\nhost: x\r\norigin: ${origin}\r\naccess-control-request-method: POST\r\n${extra}\r\n`;

  it('answers a preflight with 204 and the allow headers', async () => {
    const { port } = await serve(createHttpHandler(echoServer(), { cors: true }));
    const r = await rawExchange(
      port,
      preflight('https://app.example', 'access-control-request-headers: content-type, x-token\r\n'),
    );
    expect(r.status).toBe(204);
    expect(r.body).toBe('');
    expect(r.headers['access-control-allow-origin']).toBe('*');
    expect(r.headers['access-control-allow-methods']).toBe('POST, OPTIONS');
    expect(r.headers['access-control-allow-headers']).toBe('content-type, x-token');
    expect(r.headers['access-control-max-age']).toBe('600');
    expect(r.headers.allow).toBe('POST, OPTIONS');
  });

  it('adds Access-Control-Allow-Origin to POST answers and errors', async () => {
    const { port } = await serve(createHttpHandler(echoServer(), { cors: true }));
    const ok = await rawExchange(
      port,
      rawPost(ping, { origin: 'https://a.example', 'content-type': 'application/json' }),
    );
    expect(ok.headers['access-control-allow-origin']).toBe('*');
    const bad = await rawExchange(
      port,
      rawPost(ping, { origin: 'https://a.example', 'content-type': 'text/plain' }),
    );
    expect(bad.status).toBe(415);
    expect(bad.headers['access-control-allow-origin']).toBe('*');
    const get = await rawExchange(
      port,
      'GET / HTTP/1.1\r\nhost: x\r\norigin: https://a.example\r\n\r\n',
    );
    expect(get.status).toBe(405);
    expect(get.headers.allow).toBe('POST, OPTIONS');
  });

  it('echoes allowed origins from a list with Vary, credentials and configured headers', async () => {
    const { port } = await serve(
      createHttpHandler(echoServer(), {
        cors: {
          origin: ['https://good.example'],
          credentials: true,
          headers: ['content-type', 'authorization'],
          exposeHeaders: ['x-request-id'],
          maxAge: 60,
        },
      }),
    );
    const r = await rawExchange(
      port,
      preflight('https://good.example', 'access-control-request-headers: x-evil\r\n'),
    );
    expect(r.headers['access-control-allow-origin']).toBe('https://good.example');
    expect(r.headers.vary).toBe('Origin');
    expect(r.headers['access-control-allow-credentials']).toBe('true');
    expect(r.headers['access-control-allow-headers']).toBe('content-type, authorization');
    expect(r.headers['access-control-max-age']).toBe('60');
    const post = await rawExchange(
      port,
      rawPost(ping, { origin: 'https://good.example', 'content-type': 'application/json' }),
    );
    expect(post.headers['access-control-allow-origin']).toBe('https://good.example');
    expect(post.headers['access-control-expose-headers']).toBe('x-request-id');
  });

  it('gives no CORS headers to an origin that is not allowed', async () => {
    const { port } = await serve(
      createHttpHandler(echoServer(), { cors: { origin: (o) => o.endsWith('.good.example') } }),
    );
    const r = await rawExchange(port, preflight('https://evil.example'));
    expect(r.status).toBe(204);
    expect(r.headers['access-control-allow-origin']).toBeUndefined();
    const ok = await rawExchange(port, preflight('https://a.good.example'));
    expect(ok.headers['access-control-allow-origin']).toBe('https://a.good.example');
    const post = await rawExchange(
      port,
      rawPost(ping, { origin: 'https://evil.example', 'content-type': 'application/json' }),
    );
    expect(post.status).toBe(200);
    expect(post.headers['access-control-allow-origin']).toBeUndefined();
  });

  it('never answers * with credentials', async () => {
    const { port } = await serve(createHttpHandler(echoServer(), { cors: { credentials: true } }));
    const r = await rawExchange(
      port,
      rawPost(ping, { origin: 'https://x.example', 'content-type': 'application/json' }),
    );
    expect(r.headers['access-control-allow-origin']).toBe('https://x.example');
    expect(r.headers['access-control-allow-credentials']).toBe('true');
  });
});
