import { Readable } from 'node:stream';
import { createServer } from '@jsonrpc-kit/server';
import { listen } from '@jsonrpc-kit/transport-http/node';
import { request } from 'undici';
import { afterEach, describe, expect, it } from 'vitest';

const cleanups: (() => unknown)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

const MiB = 1024 * 1024;
const big = JSON.stringify({
  jsonrpc: '2.0',
  id: 1,
  method: 'echo',
  params: ['x'.repeat(2 * MiB)],
});

/** The body as an async iterable of 64 KiB pieces: sent chunked, without a Content-Length. */
async function* pieces(): AsyncGenerator<Buffer> {
  for (let i = 0; i < big.length; i += 64 * 1024) yield Buffer.from(big.slice(i, i + 64 * 1024));
}

async function server(limits: { server?: number; http?: number } = {}) {
  const rpc = createServer(limits.server === undefined ? {} : { maxMessageBytes: limits.server });
  rpc.method('echo', (params) => params);
  const http = await listen(rpc, limits.http === undefined ? {} : { maxMessageBytes: limits.http });
  cleanups.push(() => http.close());
  return http;
}

const tooLarge = {
  jsonrpc: '2.0',
  id: null,
  error: { code: -32004, message: 'Request too large', data: { maxRequestBytes: MiB } },
};

describe('clients that do not wait for 100-continue get the 413 of an over-limit body', () => {
  it.each(['length', 'chunked'] as const)('undici request, 2 MiB (%s)', async (how) => {
    const http = await server();
    for (let i = 0; i < 5; i++) {
      const r = await request(http.url, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: how === 'length' ? big : Readable.from(pieces()),
      });
      expect(r.statusCode).toBe(413);
      expect(await r.body.json()).toEqual(tooLarge);
    }
  });

  it.each(['length', 'chunked'] as const)('global fetch, 2 MiB (%s)', async (how) => {
    const http = await server();
    for (let i = 0; i < 5; i++) {
      const r = await fetch(http.url, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: how === 'length' ? big : (Readable.toWeb(Readable.from(pieces())) as ReadableStream),
        duplex: 'half',
      } as RequestInit);
      expect(r.status).toBe(413);
      expect(await r.json()).toEqual(tooLarge);
    }
  });
});

describe('one limit per HTTP endpoint', () => {
  const post = (url: string) =>
    request(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: big });

  it("the handler adopts the server's limit: raising it on the server lets 2 MiB through", async () => {
    const http = await server({ server: 4 * MiB });
    const r = await post(http.url);
    expect(r.statusCode).toBe(200);
    expect((await r.body.json()) as unknown).toMatchObject({
      id: 1,
      result: ['x'.repeat(2 * MiB)],
    });
  });

  it("the handler's own limit is the server's too for its exchanges", async () => {
    const http = await server({ http: 4 * MiB });
    const r = await post(http.url);
    expect(r.statusCode).toBe(200);
    expect((await r.body.json()) as unknown).toMatchObject({
      id: 1,
      result: ['x'.repeat(2 * MiB)],
    });
    const tight = await server({ server: 4 * MiB, http: MiB });
    expect((await post(tight.url)).statusCode).toBe(413);
  });
});
