import { createMemoryTransportPair, type RequestOptions, type Transport } from '@jsonrpc-kit/core';
import { afterEach, describe, expect, it } from 'vitest';
import type { ServerOptions } from './options.js';
import { createServer } from './server.js';
import type { Connection, Server } from './server-types.js';
import type { HandlerContext } from './types.js';

const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));

const open: Connection[] = [];
afterEach(async () => {
  for (const connection of open.splice(0)) await connection.close();
});

/** Serves `server` over a memory pair; the other side is raw text. */
async function raw(server: Server) {
  const [a, b] = createMemoryTransportPair();
  open.push(server.connect(b, { kind: 'memory' }));
  const inbox: string[] = [];
  await a.start({ onMessage: (m) => inbox.push(m), onClose: () => {} });
  return {
    transport: a as Transport,
    inbox,
    send: (text: string) => a.send(text),
    async next(): Promise<string> {
      for (let i = 0; i < 400 && inbox.length === 0; i++) await sleep(5);
      const message = inbox.shift();
      if (message === undefined) throw new Error('no message');
      return message;
    },
  };
}

function recording(options: ServerOptions = { callContext: true }) {
  const server = createServer(options);
  const seen: Array<Pick<HandlerContext, 'deadline' | 'meta'> & { params: unknown }> = [];
  let ran = 0;
  server.method('look', (params: unknown, ctx) => {
    ran++;
    seen.push({ deadline: ctx.deadline, meta: ctx.meta, params });
    return 'ok';
  });
  server.method('wait', async (_params: unknown, ctx) => {
    ran++;
    await new Promise((resolve) => ctx.signal.addEventListener('abort', resolve, { once: true }));
    return 'aborted';
  });
  return { server, seen, ran: () => ran };
}

describe('reading the call context (memory transport, raw bytes)', () => {
  it('ctx.meta and ctx.deadline come from params._meta; the params stay as received', async () => {
    const { server, seen } = recording();
    const peer = await raw(server);
    const before = Date.now();
    await peer.send(
      '{"jsonrpc":"2.0","id":1,"method":"look","params":{"q":1,"_meta":{"tenant":"acme","rpc.timeout":5000}}}',
    );
    expect(await peer.next()).toBe('{"jsonrpc":"2.0","id":1,"result":"ok"}');
    expect(seen[0]?.meta).toEqual({ tenant: 'acme' });
    expect(seen[0]?.deadline).toBeGreaterThanOrEqual(before + 5_000);
    expect(seen[0]?.deadline).toBeLessThanOrEqual(Date.now() + 5_000);
    expect(seen[0]?.params).toEqual({ q: 1, _meta: { tenant: 'acme', 'rpc.timeout': 5000 } });
  });

  it('off by default: _meta is just params', async () => {
    const { server, seen } = recording({});
    const peer = await raw(server);
    await peer.send(
      '{"jsonrpc":"2.0","id":1,"method":"look","params":{"_meta":{"tenant":"acme","rpc.timeout":0}}}',
    );
    expect(await peer.next()).toBe('{"jsonrpc":"2.0","id":1,"result":"ok"}');
    expect(seen[0]).toMatchObject({ deadline: undefined, meta: undefined });
  });

  it('a request whose time is up on arrival is answered -32005 at once and never runs', async () => {
    const { server, ran } = recording();
    const peer = await raw(server);
    await peer.send(
      '{"jsonrpc":"2.0","id":7,"method":"wait","params":{"_meta":{"rpc.timeout":0}}}',
    );
    expect(await peer.next()).toBe(
      `{"jsonrpc":"2.0","id":7,"error":{"code":-32005,"message":"Request timed out: the caller's deadline passed"}}`,
    );
    await peer.send('{"jsonrpc":"2.0","method":"look","params":{"_meta":{"rpc.timeout":-5}}}');
    await peer.send('{"jsonrpc":"2.0","id":8,"method":"look","params":{}}');
    expect(await peer.next()).toBe('{"jsonrpc":"2.0","id":8,"result":"ok"}');
    expect(ran()).toBe(1); // only id 8
  });

  it('a deadline that passes while the handler runs aborts ctx.signal and answers -32005', async () => {
    const { server } = recording();
    const peer = await raw(server);
    await peer.send(
      '{"jsonrpc":"2.0","id":2,"method":"wait","params":{"_meta":{"rpc.timeout":30}}}',
    );
    expect(await peer.next()).toBe(
      `{"jsonrpc":"2.0","id":2,"error":{"code":-32005,"message":"Request timed out: the caller's deadline passed"}}`,
    );
  });

  it('a deadline that passes while the call waits for a slot never runs it', async () => {
    const { server, ran } = recording({ callContext: true, maxConcurrency: 1 });
    const peer = await raw(server);
    await peer.send(
      '{"jsonrpc":"2.0","id":1,"method":"wait","params":{"_meta":{"rpc.timeout":200}}}',
    );
    await peer.send(
      '{"jsonrpc":"2.0","id":2,"method":"wait","params":{"_meta":{"rpc.timeout":20}}}',
    );
    const answers = [await peer.next(), await peer.next()];
    expect(answers[0]).toContain('"id":2,"error":{"code":-32005');
    expect(answers[1]).toContain('"id":1,"error":{"code":-32005');
    expect(ran()).toBe(1);
  });

  it('a deadline too far for a timer is kept in ctx.deadline but never fires early', async () => {
    const { server, seen } = recording();
    const peer = await raw(server);
    await peer.send(
      '{"jsonrpc":"2.0","id":1,"method":"wait","params":{"_meta":{"rpc.timeout":100000000000}}}',
    );
    await peer.send(
      '{"jsonrpc":"2.0","id":2,"method":"look","params":{"_meta":{"rpc.timeout":100000000000}}}',
    );
    expect(await peer.next()).toBe('{"jsonrpc":"2.0","id":2,"result":"ok"}');
    await sleep(30);
    expect(peer.inbox).toEqual([]); // the waiting call was not aborted
    expect(seen[0]!.deadline! - Date.now()).toBeGreaterThan(99_000_000_000);
  });

  it("the server's own shorter timeout keeps its message", async () => {
    const { server } = recording({ callContext: true, handlerTimeout: 20 });
    const peer = await raw(server);
    await peer.send(
      '{"jsonrpc":"2.0","id":3,"method":"wait","params":{"_meta":{"rpc.timeout":60000}}}',
    );
    expect(await peer.next()).toBe(
      '{"jsonrpc":"2.0","id":3,"error":{"code":-32005,"message":"Request timed out after 20 ms"}}',
    );
  });

  it('a custom member name; a malformed rpc.timeout is ignored', async () => {
    const { server, seen } = recording({ callContext: { member: 'ctx' } });
    const peer = await raw(server);
    await peer.send(
      '{"jsonrpc":"2.0","id":1,"method":"look","params":{"ctx":{"rpc.timeout":"soon","user":"u"},"_meta":{"x":1}}}',
    );
    expect(await peer.next()).toBe('{"jsonrpc":"2.0","id":1,"result":"ok"}');
    expect(seen[0]).toMatchObject({ deadline: undefined, meta: { user: 'u' } });
  });

  it('a handler passes its ctx as the options: the time left, the meta (and its cancellation) go on', async () => {
    const server = createServer({ callContext: true });
    const peers = new Set<unknown>();
    server.method('outer', async (_params: unknown, ctx) => {
      peers.add(ctx.peer);
      const options: RequestOptions = ctx; // a handler's context is valid request options
      const named = await ctx.peer!.request('inner', { x: 1 }, options);
      const positional = await ctx.peer!.request('inner', [1], ctx);
      const plain = await ctx.peer!.request('inner', { y: 1 });
      return [named, positional, plain];
    });
    const peer = await raw(server);
    await peer.send(
      '{"jsonrpc":"2.0","id":"o","method":"outer","params":{"_meta":{"user":"u","rpc.timeout":4000}}}',
    );
    const inner = JSON.parse(await peer.next()) as {
      id: number;
      params: { x: number; _meta: { user: string; 'rpc.timeout': number } };
    };
    expect(inner.params.x).toBe(1);
    expect(inner.params._meta.user).toBe('u');
    expect(inner.params._meta['rpc.timeout']).toBeGreaterThan(3_000);
    expect(inner.params._meta['rpc.timeout']).toBeLessThanOrEqual(4_000);
    await peer.send(`{"jsonrpc":"2.0","id":${inner.id},"result":"a"}`);
    // By position: nothing to put the context in; the call goes out unchanged.
    const second = await peer.next();
    expect(second).toMatch(/^\{"jsonrpc":"2.0","id":\d+,"method":"inner","params":\[1\]\}$/);
    await peer.send(
      `{"jsonrpc":"2.0","id":${(JSON.parse(second) as { id: number }).id},"result":"b"}`,
    );
    // Without the ctx, nothing is passed on: the wire is as the handler wrote it.
    const third = await peer.next();
    expect(third).toMatch(/^\{"jsonrpc":"2.0","id":\d+,"method":"inner","params":\{"y":1\}\}$/);
    await peer.send(
      `{"jsonrpc":"2.0","id":${(JSON.parse(third) as { id: number }).id},"result":"c"}`,
    );
    expect(await peer.next()).toBe('{"jsonrpc":"2.0","id":"o","result":["a","b","c"]}');
    // ctx.peer stays the connection itself (per-connection state keyed by it keeps working).
    await peer.send('{"jsonrpc":"2.0","id":"p","method":"outer","params":{}}');
    for (let i = 0; i < 3; i++) {
      const call = JSON.parse(await peer.next()) as { id: number };
      await peer.send(`{"jsonrpc":"2.0","id":${call.id},"result":${i}}`);
    }
    expect(await peer.next()).toBe('{"jsonrpc":"2.0","id":"p","result":[0,1,2]}');
    expect(peers.size).toBe(1);
  });

  it('the downstream cancel reaches a nested call made with ctx', async () => {
    const server = createServer({ callContext: true });
    server.method('outer', (_params: unknown, ctx) => ctx.peer!.request('inner', {}, ctx));
    const peer = await raw(server);
    await peer.send('{"jsonrpc":"2.0","id":1,"method":"outer","params":{"_meta":{"m":1}}}');
    const inner = JSON.parse(await peer.next()) as { id: number };
    await peer.send('{"jsonrpc":"2.0","method":"$/cancelRequest","params":{"id":1}}');
    const answers = [await peer.next(), await peer.next()].sort();
    expect(answers).toEqual([
      `{"jsonrpc":"2.0","id":1,"error":{"code":-32001,"message":"Request cancelled"}}`,
      `{"jsonrpc":"2.0","method":"$/cancelRequest","params":{"id":${inner.id}}}`,
    ]);
  });
});

describe('reading the call context over handle() (HTTP headers)', () => {
  it('reads Jsonrpc-Timeout and Jsonrpc-Meta; params win for meta, the sooner time wins', async () => {
    const { server, seen, ran } = recording();
    const headers = { 'jsonrpc-timeout': '5000', 'jsonrpc-meta': '{"tenant":"acme","n":2}' };
    const before = Date.now();
    expect(
      await server.handle('{"jsonrpc":"2.0","id":1,"method":"look","params":[1]}', { headers }),
    ).toBe('{"jsonrpc":"2.0","id":1,"result":"ok"}');
    expect(seen[0]?.meta).toEqual({ tenant: 'acme', n: 2 });
    expect(seen[0]?.deadline).toBeGreaterThanOrEqual(before + 5_000);
    await server.handle(
      '{"jsonrpc":"2.0","id":2,"method":"look","params":{"_meta":{"tenant":"b","rpc.timeout":100}}}',
      { headers },
    );
    expect(seen[1]?.meta).toEqual({ tenant: 'b' });
    expect(seen[1]?.deadline).toBeLessThanOrEqual(Date.now() + 100);
    expect(
      await server.handle('{"jsonrpc":"2.0","id":3,"method":"wait"}', {
        headers: { 'jsonrpc-timeout': '0' },
      }),
    ).toBe(
      `{"jsonrpc":"2.0","id":3,"error":{"code":-32005,"message":"Request timed out: the caller's deadline passed"}}`,
    );
    expect(ran()).toBe(2);
  });

  it('ignores malformed headers, and headers when told to', async () => {
    const { server, seen } = recording({ callContext: { headers: false } });
    await server.handle('{"jsonrpc":"2.0","id":1,"method":"look"}', {
      headers: { 'jsonrpc-timeout': '0', 'jsonrpc-meta': '{"a":1}' },
    });
    const other = recording();
    await other.server.handle('{"jsonrpc":"2.0","id":1,"method":"look"}', {
      headers: { 'jsonrpc-timeout': 'soon', 'jsonrpc-meta': 'not json' },
    });
    expect(seen[0]).toMatchObject({ deadline: undefined, meta: undefined });
    expect(other.seen[0]).toMatchObject({ deadline: undefined, meta: undefined });
  });
});
