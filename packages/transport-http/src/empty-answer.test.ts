import type { Server as HttpServer } from 'node:http';
import { createClient } from '@jsonrpc-kit/client';
import { type Transport, TransportError, type TransportHandler } from '@jsonrpc-kit/core';
import { afterEach, describe, expect, it } from 'vitest';
import { closeAll, serve } from '../test/helpers.js';
import { expectsAnswer } from './expects-answer.js';
import { createHttpTransport as createFetchTransport } from './http-transport.js';
import {
  createHttpTransport as createNodeTransport,
  type NodeHttpTransportOptions,
} from './node-transport.js';

const transports: Transport[] = [];
const closers: (() => Promise<void>)[] = [];

afterEach(async () => {
  await Promise.all(closers.splice(0).map((close) => close()));
  await Promise.all(transports.splice(0).map((t) => t.close()));
  await closeAll();
});

/**
 * A raw node:http server that answers every POST with the empty answer its path names, and
 * records the exact bytes it received.
 */
async function emptyServer(): Promise<{ url: string; bodies: string[]; server: HttpServer }> {
  const bodies: string[] = [];
  const { url, server } = await serve((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      bodies.push(Buffer.concat(chunks).toString('utf8'));
      if (req.url === '/204') res.writeHead(204).end();
      else if (req.url === '/202') res.writeHead(202).end();
      else if (req.url === '/blank200') res.writeHead(200).end(' \r\n\t ');
      else if (req.url === '/first') {
        // Answers only the first request of a batch, as a broken or hostile server might.
        const [first] = (JSON.parse(bodies.at(-1)!) as { id?: unknown }[]).filter((m) => 'id' in m);
        const answer = JSON.stringify([{ jsonrpc: '2.0', id: first!.id, result: 'first' }]);
        res.writeHead(200, { 'content-type': 'application/json' }).end(answer);
      } else res.writeHead(200, { 'content-type': 'application/json' }).end();
    });
  });
  return { url, bodies, server };
}

function recorder(): TransportHandler & { messages: string[] } {
  const r = {
    messages: [] as string[],
    onMessage: (m: string) => r.messages.push(m),
    onClose: () => {},
  };
  return r;
}

const request = '{"jsonrpc":"2.0","id":1,"method":"add","params":[1,2]}';
const notification = '{"jsonrpc":"2.0","method":"log","params":{"id":7}}';

type Make = (options: NodeHttpTransportOptions) => Transport;
const paths: [string, Make][] = [
  ['undici (node entry)', (o) => createNodeTransport(o)],
  ['fetch (default entry)', (o) => createFetchTransport(o)],
];

describe.each(paths)('empty 2xx answers: %s', (_name, make) => {
  const open = (options: NodeHttpTransportOptions): Transport => {
    const t = make(options);
    transports.push(t);
    return t;
  };

  it.each([
    ['/204', 204, ''],
    ['/empty200', 200, ''],
    ['/202', 202, ''],
    ['/blank200', 200, ' \r\n\t '],
  ])('rejects a request answered by %s with TransportError', async (path, status, body) => {
    const { url, bodies } = await emptyServer();
    const t = open({ url: new URL(path, url) });
    const h = recorder();
    await t.start(h);
    const error = (await t.send(request).catch((e: unknown) => e)) as TransportError;
    expect(error).toBeInstanceOf(TransportError);
    expect(error.code).toBe('TRANSPORT_ERROR');
    expect(error.status).toBe(status);
    expect(error.body).toBe(body);
    expect(error.message).toBe(`HTTP ${status}: no answer to a request`);
    expect(bodies).toEqual([request]);
    expect(h.messages).toEqual([]);
  });

  it.each(['/204', '/empty200'])('rejects a batch holding one request on %s', async (path) => {
    const { url, bodies } = await emptyServer();
    const t = open({ url: new URL(path, url) });
    await t.start(recorder());
    const batch = `[{"jsonrpc":"2.0","method":"a"},${request},{"jsonrpc":"2.0","method":"b"}]`;
    const error = (await t.send(batch).catch((e: unknown) => e)) as TransportError;
    expect(error).toBeInstanceOf(TransportError);
    expect(error.message).toMatch(/^HTTP 20[04]: no answer to a request$/);
    expect(bodies).toEqual([batch]);
  });

  it.each(['/204', '/empty200', '/202'])('still completes notifications on %s', async (path) => {
    const { url, bodies } = await emptyServer();
    const t = open({ url: new URL(path, url) });
    const h = recorder();
    await t.start(h);
    // Its params carry an "id" member: only the message's own id counts.
    await expect(t.send(notification)).resolves.toBeUndefined();
    const batch = '[{"jsonrpc":"2.0","method":"a"},{"jsonrpc":"2.0","method":"b","params":[1]}]';
    await expect(t.send(batch)).resolves.toBeUndefined();
    expect(bodies).toEqual([notification, batch]);
    expect(h.messages).toEqual([]);
  });

  it('fails a createClient call at once instead of waiting for a timeout', async () => {
    const { url } = await emptyServer();
    // Without the fix this call would wait for its timeout (or forever, with none).
    const client = createClient(open({ url: new URL('/204', url) }), { callTimeout: 3000 });
    closers.push(() => client.close());
    const started = Date.now();
    const error = await client.request('add', [1, 2]).catch((e: unknown) => e);
    expect(Date.now() - started).toBeLessThan(2000);
    expect(error).toBeInstanceOf(TransportError);
    expect((error as TransportError).status).toBe(204);
    expect((error as TransportError).method).toBe('add');
    expect(client.pending).toBe(0);
    await expect(client.notify('log', { id: 3 })).resolves.toBeUndefined();
  });

  it('fails exactly the requests of a createClient batch', async () => {
    const { url, bodies } = await emptyServer();
    const client = createClient(open({ url: new URL('/empty200', url) }), { callTimeout: 3000 });
    closers.push(() => client.close());
    const results = await client.batch((b) => [
      b.request('add', [1, 2]),
      b.notify('log'),
      b.request('sub', [3, 1]),
    ]);
    expect(results).toHaveLength(2);
    for (const result of results) {
      expect(result.ok).toBe(false);
      if (!result.ok) {
        expect(result.error).toBeInstanceOf(TransportError);
        expect((result.error as TransportError).status).toBe(200);
      }
    }
    expect(client.pending).toBe(0);
    expect(JSON.parse(bodies[0]!)).toHaveLength(3);
  });

  it('fails at once the requests of a batch its answer leaves out, and settles the rest', async () => {
    const { url } = await emptyServer();
    // Without the check the two left out would wait for the timeout.
    const client = createClient(open({ url: new URL('/first', url) }), { callTimeout: 3000 });
    closers.push(() => client.close());
    const started = Date.now();
    const results = await client.batch((b) => [
      b.request('a'),
      b.notify('log'),
      b.request('b'),
      b.request('c'),
    ]);
    expect(Date.now() - started).toBeLessThan(2000);
    expect(results[0]).toEqual({ ok: true, value: 'first' });
    for (const result of results.slice(1)) {
      expect(result.ok).toBe(false);
      if (!result.ok) {
        expect(result.error).toBeInstanceOf(TransportError);
        expect((result.error as TransportError).message).toMatch(
          /^HTTP 200 answer holds no answer to the requests with ids \d+, \d+ \(/,
        );
      }
    }
    expect(client.pending).toBe(0);
  });
});

describe('expectsAnswer', () => {
  it.each([
    [request, true],
    ['{"jsonrpc":"2.0","id":null,"method":"m"}', true],
    ['{"jsonrpc":"2.0","id":"x","method":"m"}', true],
    // An id spelled with escapes is still an id member.
    ['{"jsonrpc":"2.0","\\u0069d":4,"method":"m"}', true],
    // An invalid call with an id is answered with an error by the server.
    ['{"jsonrpc":"2.0","id":5,"method":3}', true],
    [`[{"jsonrpc":"2.0","method":"n"},${request}]`, true],
    [notification, false],
    ['{"jsonrpc":"2.0","method":"m"}', false],
    ['{"jsonrpc":"2.0","method":"m","params":["\\u0069d"]}', false],
    ['[{"jsonrpc":"2.0","method":"a"},{"jsonrpc":"2.0","method":"b"}]', false],
    // A response is never answered.
    ['{"jsonrpc":"2.0","id":1,"result":2}', false],
    ['not json "id"', false],
  ])('%s → %s', (text, expected) => {
    expect(expectsAnswer(text)).toBe(expected);
  });
});
