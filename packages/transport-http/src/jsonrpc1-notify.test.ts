// JSON-RPC 1.0 over HTTP: a notification carries `"id": null` and gets no answer.
import { createClient } from '@jsonrpc-kit/client';
import { jsonrpc1, type Transport } from '@jsonrpc-kit/core';
import { createServer } from '@jsonrpc-kit/server';
import { afterEach, describe, expect, it } from 'vitest';
import { expectsAnswer } from './expects-answer.js';
import { createHttpTransport as createFetchTransport } from './http-transport.js';
import { type HttpListener, listen } from './listen.js';
import { createHttpTransport as createNodeTransport } from './node-transport.js';
import { createStreamableHttpTransport } from './streamable-transport.js';

const cleanups: (() => unknown)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

/** The kit's server in 1.0 mode over node:http: `log` records what it got. */
async function server1(): Promise<{ http: HttpListener; logged: unknown[] }> {
  const logged: unknown[] = [];
  const server = createServer({ jsonrpc1: true });
  server.notification('log', (params) => {
    logged.push(params);
  });
  server.method('echo', (params) => params);
  const http = await listen(server, { port: 0, host: '127.0.0.1' });
  cleanups.push(() => http.close());
  return { http, logged };
}

const makers: [string, (url: string) => Transport][] = [
  ['undici (node entry)', (url) => createNodeTransport({ url })],
  ['fetch (default entry)', (url) => createFetchTransport({ url })],
];

describe.each(makers)('a JSON-RPC 1.0 client over HTTP: %s', (_name, make) => {
  it('sends a notification (id null) that the server runs and answers 204, and resolves', async () => {
    const { http, logged } = await server1();
    const client = createClient(make(`http://127.0.0.1:${http.port}/`), {
      jsonrpc1,
      callTimeout: 2000,
    });
    cleanups.push(() => client.close());
    await expect(client.notify('log', ['hi'])).resolves.toBeUndefined();
    expect(logged).toEqual([['hi']]);
    // Requests still expect their answers.
    expect(await client.request('echo', [1, 2])).toEqual([1, 2]);
  });
});

describe('expectsAnswer and JSON-RPC 1.0', () => {
  it('owes no answer to a 1.0 notification, and one to a 1.0 request', () => {
    expect(expectsAnswer('{"id":null,"method":"log","params":["hi"]}')).toBe(false);
    expect(expectsAnswer('{"method":"log","params":[],"id":null}')).toBe(false);
    expect(expectsAnswer('{"id":1,"method":"echo","params":["hi"]}')).toBe(true);
  });

  it('still owes an answer to a 2.0 request with id null (the server answers it)', () => {
    expect(expectsAnswer('{"jsonrpc":"2.0","id":null,"method":"log"}')).toBe(true);
  });
});

describe('a JSON-RPC 1.0 notification over Streamable HTTP', () => {
  it('resolves on an empty 202 answer', async () => {
    const { serve, closeAll } = await import('../test/helpers.js');
    cleanups.push(closeAll);
    const { url } = await serve((req, res) => {
      req.resume();
      req.on('end', () => res.writeHead(202).end());
    });
    const t = createStreamableHttpTransport({ url });
    cleanups.push(() => t.close());
    await t.start({ onMessage: () => {}, onClose: () => {} });
    await expect(t.send('{"id":null,"method":"log","params":["hi"]}')).resolves.toBeUndefined();
  });
});
