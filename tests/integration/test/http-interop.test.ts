import type { AddressInfo } from 'node:net';
import { createClient } from '@jsonrpc-kit/client';
import { jsonrpc1, MethodNotFoundError } from '@jsonrpc-kit/core';
import { createServer } from '@jsonrpc-kit/server';
import { createHttpTransport, type HttpListener, listen } from '@jsonrpc-kit/transport-http/node';
import jayson from 'jayson';
import { JSONRPCClient } from 'json-rpc-2.0';
import { afterEach, describe, expect, it } from 'vitest';

const cleanups: (() => unknown)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

async function ourServer(): Promise<HttpListener> {
  const server = createServer();
  server.method('subtract', (params) => {
    if (Array.isArray(params)) return (params[0] as number) - (params[1] as number);
    const p = params as { minuend: number; subtrahend: number };
    return p.minuend - p.subtrahend;
  });
  server.method('echo', (params) => params);
  server.notification('note', () => {});
  const http = await listen(server);
  cleanups.push(() => http.close());
  return http;
}

describe('peer clients call our HTTP server', () => {
  it('jayson client: positional, named, errors, batches', async () => {
    const http = await ourServer();
    const jc = jayson.Client.http({ host: '127.0.0.1', port: http.port, path: '/' } as never);
    const call = (
      method: string,
      params: unknown,
    ): Promise<{ result?: unknown; error?: { code: number } }> =>
      new Promise((resolve, reject) => {
        jc.request(method, params as never, (err: unknown, response: any) =>
          err ? reject(err) : resolve(response),
        );
      });
    expect((await call('subtract', [42, 23])).result).toBe(19);
    expect((await call('subtract', { minuend: 42, subtrahend: 23 })).result).toBe(19);
    expect((await call('echo', ['é€😀'])).result).toEqual(['é€😀']);
    expect((await call('nope', [])).error?.code).toBe(-32601);
    const batch = await new Promise<unknown[]>((resolve, reject) => {
      jc.request(
        [
          jc.request('subtract', [5, 3], undefined as never),
          jc.request('echo', [1], undefined as never),
        ] as never,
        (err: unknown, responses: unknown[]) => (err ? reject(err) : resolve(responses)),
      );
    });
    expect(batch).toHaveLength(2);
    // A jayson notification (id null = notify with callback-less request): our server answers 204.
    await new Promise<void>((resolve, reject) => {
      jc.request('note', [], null as never, (err: unknown) => (err ? reject(err) : resolve()));
    });
  });

  it('json-rpc-2.0 client over fetch', async () => {
    const http = await ourServer();
    const jc: JSONRPCClient = new JSONRPCClient(async (request) => {
      const res = await fetch(http.url, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(request),
      });
      if (res.status === 200) jc.receive(await res.json());
      else if (res.status !== 204) throw new Error(res.statusText);
    });
    expect(await jc.request('subtract', [42, 23])).toBe(19);
    expect(await jc.request('subtract', { minuend: 1, subtrahend: 2 })).toBe(-1);
    await expect(jc.request('missing', [])).rejects.toMatchObject({ code: -32601 });
    jc.notify('note', {});
    const results = await jc.requestAdvanced([
      { jsonrpc: '2.0', id: 1, method: 'subtract', params: [3, 1] },
      { jsonrpc: '2.0', id: 2, method: 'echo', params: ['x'] },
    ]);
    expect(results.map((r) => r.result)).toEqual([2, ['x']]);
  });
});

describe('our client calls a jayson HTTP server', () => {
  it('requests, errors, notifications and batches', async () => {
    const jserver = new jayson.Server({
      add: (args: number[], callback: (err: unknown, result?: unknown) => void) =>
        callback(null, args[0]! + args[1]!),
      fail: (_args: unknown, callback: (err: unknown) => void) =>
        callback({ code: 4242, message: 'custom' }),
      note: (_args: unknown, callback: (err: unknown) => void) => callback(null),
    });
    const httpServer = jserver.http();
    await new Promise<void>((resolve) => httpServer.listen(0, '127.0.0.1', resolve));
    cleanups.push(
      () =>
        new Promise<void>((resolve) => {
          httpServer.closeAllConnections();
          httpServer.close(() => resolve());
        }),
    );
    const { port } = httpServer.address() as AddressInfo;
    const c = createClient(createHttpTransport({ url: `http://127.0.0.1:${port}/` }));
    cleanups.push(() => c.close());
    expect(await c.request('add', [1, 2])).toBe(3);
    await expect(c.request('missing', [])).rejects.toBeInstanceOf(MethodNotFoundError);
    await expect(c.request('fail', [])).rejects.toMatchObject({ code: 4242, message: 'custom' });
    await expect(c.notify('note', [])).resolves.toBeUndefined();
    const results = await c.batch((b) => [b.request('add', [2, 2]), b.request('add', [3, 3])]);
    expect(results).toEqual([
      { ok: true, value: 4 },
      { ok: true, value: 6 },
    ]);
  });
});

describe('our JSON-RPC 1.0 client calls a jayson HTTP server in 1.0 mode', () => {
  it('a notification (id null) resolves once jayson ran it; requests are answered', async () => {
    const noted: unknown[] = [];
    const jserver = new jayson.Server(
      {
        add: (args: number[], callback: (err: unknown, result?: unknown) => void) =>
          callback(null, args[0]! + args[1]!),
        note: (args: unknown, callback: (err: unknown) => void) => {
          noted.push(args);
          callback(null);
        },
      },
      { version: 1 } as never,
    );
    const httpServer = jserver.http();
    await new Promise<void>((resolve) => httpServer.listen(0, '127.0.0.1', resolve));
    cleanups.push(
      () =>
        new Promise<void>((resolve) => {
          httpServer.closeAllConnections();
          httpServer.close(() => resolve());
        }),
    );
    const { port } = httpServer.address() as AddressInfo;
    for (const fetchPath of [false, true]) {
      const url = `http://127.0.0.1:${port}/`;
      const transport = createHttpTransport(
        fetchPath ? { url, fetch: (input, init) => fetch(input, init) } : { url },
      );
      const c = createClient(transport, { jsonrpc1, callTimeout: 2000 });
      cleanups.push(() => c.close());
      await expect(c.notify('note', ['hi'])).resolves.toBeUndefined();
      expect(await c.request('add', [1, 2])).toBe(3);
    }
    expect(noted).toEqual([['hi'], ['hi']]);
  });
});
