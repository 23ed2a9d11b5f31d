// The HTTP client transports against a hostile server: answers too large, or endless.
import type { ServerResponse } from 'node:http';
import { setTimeout as sleep } from 'node:timers/promises';
import { TimeoutError, type Transport, TransportError } from '@jsonrpc-kit/core';
import { afterEach, describe, expect, it } from 'vitest';
import { closeAll, serve } from '../test/helpers.js';
import { createHttpTransport as createFetchTransport } from './http-transport.js';
import {
  createHttpTransport as createNodeTransport,
  type NodeHttpTransportOptions,
} from './node-transport.js';
import { createStreamableHttpTransport } from './streamable-transport.js';

const transports: Transport[] = [];

afterEach(async () => {
  await Promise.all(transports.splice(0).map((t) => t.close()));
  await closeAll();
});

const request = '{"jsonrpc":"2.0","id":1,"method":"big"}';
const CHUNK = Buffer.alloc(64 * 1024, 0x20);

/** What the hostile server wrote to one answer, and when its connection went away. */
interface Flood {
  written: number;
  closed: Promise<void>;
}

/**
 * A server whose answer to every POST is `{"jsonrpc":"2.0","id":1,"result":"` and then blanks
 * without end, as fast as the client reads them (or `every` ms a chunk), until the connection
 * goes away; `length` sends a `Content-Length` first.
 */
async function floodServer(options: { every?: number; length?: number } = {}) {
  const floods: Flood[] = [];
  const { url } = await serve((req, res: ServerResponse) => {
    req.resume();
    req.on('end', () => {
      let markClosed!: () => void;
      const flood: Flood = {
        written: 0,
        closed: new Promise((resolve) => {
          markClosed = resolve;
        }),
      };
      floods.push(flood);
      const headers: Record<string, string | number> = { 'content-type': 'application/json' };
      if (options.length !== undefined) headers['content-length'] = options.length;
      res.writeHead(200, headers);
      res.write('{"jsonrpc":"2.0","id":1,"result":"');
      let timer: ReturnType<typeof setInterval> | undefined;
      res.on('close', () => {
        clearInterval(timer);
        markClosed();
      });
      const write = (): boolean => {
        if (res.destroyed) return false;
        flood.written += CHUNK.length;
        return res.write(CHUNK);
      };
      if (options.every !== undefined) {
        timer = setInterval(write, options.every);
        return;
      }
      const pump = (): void => {
        while (write());
      };
      res.on('drain', pump);
      pump();
    });
  });
  return { url, floods };
}

/** Settles with what `promise` settled with, or with `'pending'` after `ms`. */
async function within(promise: Promise<unknown>, ms: number): Promise<unknown> {
  return Promise.race([
    promise.then(
      () => 'resolved',
      (error: unknown) => error,
    ),
    sleep(ms).then(() => 'pending'),
  ]);
}

type Make = (options: NodeHttpTransportOptions) => Transport;
const paths: [string, Make][] = [
  ['undici (node entry)', (o) => createNodeTransport(o)],
  ['fetch (default entry)', (o) => createFetchTransport(o)],
  [
    'node entry with options.fetch',
    (o) => createNodeTransport({ ...o, fetch: (i, init) => fetch(i, init) }),
  ],
  [
    'Streamable HTTP, JSON answers',
    (o) => {
      const { url, maxMessageBytes } = o;
      return createStreamableHttpTransport(
        maxMessageBytes === undefined ? { url } : { url, maxMessageBytes },
      );
    },
  ],
];

const MiB = 1024 * 1024;

describe.each(paths)('answer size limit: %s', (_name, make) => {
  const open = async (options: NodeHttpTransportOptions): Promise<Transport> => {
    const t = make(options);
    transports.push(t);
    await t.start({ onMessage: () => {}, onClose: () => {} });
    return t;
  };

  it('drops an endless answer once it passes maxMessageBytes and says it was too large', async () => {
    const { url, floods } = await floodServer();
    const t = await open({ url, maxMessageBytes: MiB });
    const outcome = await within(t.send(request), 5000);
    expect(outcome).toBeInstanceOf(TransportError);
    expect((outcome as TransportError).message).toMatch(/too large/);
    expect((outcome as TransportError).status).toBe(200);
    // The exchange is aborted: the server sees its connection go, having written little more
    // than the limit (what the sockets' buffers held besides).
    expect(await within(floods[0]!.closed, 2000)).toBe('resolved');
    expect(floods[0]!.written).toBeLessThan(32 * MiB);
  });

  it('refuses an answer whose Content-Length passes the limit before reading it', async () => {
    const { url, floods } = await floodServer({ every: 50, length: 400 * MiB });
    const t = await open({ url, maxMessageBytes: MiB });
    const outcome = await within(t.send(request), 2000);
    expect(outcome).toBeInstanceOf(TransportError);
    expect((outcome as TransportError).message).toMatch(/too large/);
    expect(await within(floods[0]!.closed, 2000)).toBe('resolved');
    expect(floods[0]!.written).toBeLessThan(2 * MiB);
  });

  it('takes the default limit of 16 MiB', async () => {
    const { url, floods } = await floodServer();
    const t = await open({ url });
    const outcome = await within(t.send(request), 10_000);
    expect((outcome as TransportError).message).toMatch(
      /too large: over maxMessageBytes \(16777216 bytes\)/,
    );
    expect(await within(floods[0]!.closed, 2000)).toBe('resolved');
    expect(floods[0]!.written).toBeGreaterThan(16 * MiB);
    expect(floods[0]!.written).toBeLessThan(64 * MiB);
  });

  it("stops reading an endless slow answer when the send's signal aborts (a call's timeout)", async () => {
    const { url, floods } = await floodServer({ every: 10 });
    const t = await open({ url, maxMessageBytes: 1024 * MiB });
    const outcome = await within(t.send(request, { signal: AbortSignal.timeout(300) }), 3000);
    expect(outcome).toBeInstanceOf(Error);
    expect(outcome).not.toBe('pending');
    expect(await within(floods[0]!.closed, 2000)).toBe('resolved');
  });
});

describe.each(paths.slice(0, 3))('answer timeout: %s', (_name, make) => {
  it('stops reading an endless slow answer at the transport timeout', async () => {
    const { url, floods } = await floodServer({ every: 10 });
    const t = make({ url, timeout: 300, maxMessageBytes: 1024 * MiB });
    transports.push(t);
    await t.start({ onMessage: () => {}, onClose: () => {} });
    const outcome = await within(t.send(request), 3000);
    expect(outcome).toBeInstanceOf(TimeoutError);
    expect(await within(floods[0]!.closed, 2000)).toBe('resolved');
  });

  it('refuses a maxMessageBytes that is not positive', () => {
    expect(() => make({ url: 'http://127.0.0.1:1/', maxMessageBytes: 0 })).toThrow(RangeError);
  });
});
