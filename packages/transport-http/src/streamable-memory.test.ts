import type { Transport, TransportContext, TransportHandler } from '@jsonrpc-kit/core';
import { TurnoverMap } from '@jsonrpc-kit/core/engine';
import { createServer } from '@jsonrpc-kit/server';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { closeAll, openGetStream, rawExchange, rawPost, serve, until } from '../test/helpers.js';
import type { StreamableHttpHandlerOptions } from './streamable-handler.js';
import { createStreamableHttpNodeHandler } from './streamable-node.js';

const handlers: { close(): Promise<void> }[] = [];
afterEach(async () => {
  vi.restoreAllMocks();
  await Promise.all(handlers.splice(0).map((h) => h.close()));
  await closeAll();
});

/** What the test reads of a session's transport. */
interface Session {
  readonly handler: TransportHandler | undefined;
}

const init = '{"jsonrpc":"2.0","id":0,"method":"initialize","params":{}}';

/** What `hold` answers with, once `release` is called. */
let held: Promise<string> = Promise.resolve('');
let release: (value: string) => void = () => undefined;
function hold(): void {
  held = new Promise((resolve) => {
    release = resolve;
  });
}

/** A real server, with what each `connect` received recorded. */
async function start(options: StreamableHttpHandlerOptions = {}): Promise<{
  port: number;
  connected: { transport: Transport; context: TransportContext | undefined }[];
}> {
  const server = createServer();
  server.method('initialize', () => ({ protocolVersion: '2025-06-18', capabilities: {} }));
  server.method('hold', () => held);
  server.method('whoami', (_params: unknown, ctx) => ({
    authorization: ctx.transport.headers?.authorization,
    tenant: ctx.transport.headers?.['x-tenant'],
  }));
  const connected: { transport: Transport; context: TransportContext | undefined }[] = [];
  const handler = createStreamableHttpNodeHandler(
    {
      maxMessageBytes: server.maxMessageBytes,
      connect(transport, context) {
        connected.push({ transport, context });
        return server.connect(transport, context);
      },
    },
    options,
  );
  handlers.push(handler);
  const { port } = await serve(handler);
  return { port, connected };
}

function post(body: string, headers: Record<string, string> = {}): string {
  return rawPost(body, {
    'content-type': 'application/json',
    accept: 'application/json, text/event-stream',
    ...headers,
  });
}

async function initialize(port: number, headers: Record<string, string> = {}): Promise<string> {
  const answer = await rawExchange(port, post(init, headers));
  expect(answer.status).toBe(200);
  return answer.headers['mcp-session-id']!;
}

/** Opens a session's GET stream and waits for its head: 200 OK. */
async function openGet(port: number, session: string): Promise<{ text: () => string }> {
  const stream = await openGetStream(port, session);
  await until(() => stream.text().includes('\r\n\r\n'));
  expect(stream.text().startsWith('HTTP/1.1 200 OK\r\n')).toBe(true);
  return stream;
}

describe('Streamable HTTP: what an idle session costs (counted)', () => {
  it('makes each session one transport with shared methods and no collection until one is used', async () => {
    const { port, connected } = await start();
    for (let i = 0; i < 3; i++) await initialize(port);
    expect(connected).toHaveLength(3);
    for (const { transport } of connected) {
      const own = Object.values(transport);
      // No closure per session: start, send and close come from the prototype.
      expect(own.filter((value) => typeof value === 'function')).toEqual([]);
      // No set or array kept by an idle session (its answered POST left none behind).
      expect(own.filter((value) => value instanceof Set || Array.isArray(value))).toEqual([]);
      // Five fields: its id, handler, last activity, origin (who opened it: one frozen record for
      // sessions opened alike) and one empty slot; what waiting POSTs or a stream need is made
      // only while a session has them, and its owner (the handler) is on the prototype its
      // handler's sessions share.
      expect(own).toHaveLength(5);
      expect(own.filter((value) => value === undefined)).toHaveLength(1);
      // Its last activity is a small integer (milliseconds since the handler's module loaded):
      // held in the session itself, where a `Date.now()` would be a boxed number beside it.
      const numbers = own.filter((value) => typeof value === 'number') as number[];
      expect(numbers).toHaveLength(1);
      expect(Number.isInteger(numbers[0]) && Math.abs(numbers[0]!) < 2 ** 31).toBe(true);
    }
    // Its handler is the server's session itself: no object between them, nothing of its own.
    const handlers = connected.map((c) => (c.transport as unknown as Session).handler!);
    for (const handler of handlers) expect(Object.keys(handler)).toEqual([]);
    expect(handlers[0]!.onMessage).toBe(handlers[1]!.onMessage);
    const [a, b] = connected;
    const origin = (a!.transport as unknown as { origin: unknown }).origin;
    expect(Object.isFrozen(origin)).toBe(true);
    expect((b!.transport as unknown as { origin: unknown }).origin).toBe(origin);
    expect(a!.transport.send).toBe(b!.transport.send);
    expect(a!.transport.start).toBe(b!.transport.start);
    expect(a!.transport.close).toBe(b!.transport.close);
    const owner = (a!.transport as unknown as { owner: unknown }).owner;
    expect(owner).toBeDefined();
    expect((b!.transport as unknown as { owner: unknown }).owner).toBe(owner);
  });

  it('keeps the POSTs a session waits on in tables that stay fast in a long-lived process', async () => {
    // Under a steady load a session's tables live long and gain and lose an entry per POST: core's
    // TurnoverMap, not a Map or Set whose old tables would promote every POST after a full GC.
    hold();
    const { port, connected } = await start();
    const id = await initialize(port);
    const answer = rawExchange(
      port,
      post('{"jsonrpc":"2.0","id":1,"method":"hold"}', {
        'mcp-session-id': id,
        'mcp-protocol-version': '2025-06-18',
      }),
    );
    const session = connected[0]!.transport as unknown as {
      activity?: { exchanges?: unknown; waiting?: unknown };
    };
    await until(() => session.activity?.exchanges !== undefined);
    expect(session.activity!.exchanges).toBeInstanceOf(TurnoverMap);
    expect(session.activity!.waiting).toBeInstanceOf(TurnoverMap);
    release('done');
    expect((await answer).body).toContain('"result":"done"');
    expect(session.activity).toBeUndefined();
  });

  it("keeps only the starting request's caller headers for the session, and its calls still see them", async () => {
    const { port, connected } = await start();
    await initialize(port);
    await initialize(port);
    const id = await initialize(port, { authorization: 'Bearer s3cret', 'x-tenant': 'acme' });
    const [plain, other, withCaller] = connected.map((c) => c.context!);
    // The starting request's framing (host, content type and length, accept) is not kept; with
    // nothing else, every session shares one empty headers object.
    expect(plain!.headers).toEqual({});
    expect(plain!.headers).toBe(other!.headers);
    expect(withCaller!.headers).toEqual({ authorization: 'Bearer s3cret', 'x-tenant': 'acme' });
    expect(withCaller).toMatchObject({
      kind: 'http',
      httpMethod: 'POST',
      url: 'http://127.0.0.1/',
    });
    expect(withCaller!.remoteAddress).toMatch(/127\.0\.0\.1/);
    expect('signal' in withCaller!).toBe(false);

    const answer = await rawExchange(
      port,
      post('{"jsonrpc":"2.0","id":1,"method":"whoami"}', { 'mcp-session-id': id }),
    );
    expect(JSON.parse(answer.body)).toEqual({
      jsonrpc: '2.0',
      id: 1,
      result: { authorization: 'Bearer s3cret', tenant: 'acme' },
    });
  });
});

describe('Streamable HTTP: session ids', () => {
  it('are 22 base64url characters (132 random bits), each one its own', async () => {
    const { port } = await start();
    const ids = new Set<string>();
    for (let i = 0; i < 20; i++) {
      const id = await initialize(port);
      // Visible ASCII only, as MCP requires; shorter than a UUID (40 bytes kept, not 56).
      expect(id).toMatch(/^[A-Za-z0-9_-]{22}$/);
      ids.add(id);
    }
    expect(ids.size).toBe(20);
  });
});

describe('Streamable HTTP: the facts sessions keep of their starting requests', () => {
  it('gives sessions started alike one frozen facts object, and one that differs its own', async () => {
    const { port, connected } = await start();
    await initialize(port);
    await initialize(port);
    await initialize(port, { 'x-tenant': 'acme' });
    await initialize(port, { 'x-tenant': 'acme' });
    await initialize(port, { 'x-tenant': 'other' });
    await initialize(port);
    const facts = connected.map((c) => c.context!);
    expect(facts[1]).toBe(facts[0]);
    expect(facts[3]).toBe(facts[2]);
    expect(facts[2]).not.toBe(facts[0]);
    expect(facts[4]).not.toBe(facts[2]);
    expect(facts[4]!.headers).toEqual({ 'x-tenant': 'other' });
    expect(facts[5]).not.toBe(facts[4]);
    expect(facts[5]!.headers).toEqual({});
    // Shared, so nobody's write reaches another session: the facts and their headers are frozen.
    for (const f of facts) {
      expect(Object.isFrozen(f)).toBe(true);
      expect(Object.isFrozen(f.headers)).toBe(true);
    }
    // Equal texts are kept once: every session's URL and address is one string.
    expect(new Set(facts.map((f) => f.url)).size).toBe(1);
  });

  it('keeps sessions whose authentication established different callers apart', async () => {
    let n = 0;
    const { port, connected } = await start({ authenticate: () => ({ user: `u${n++}` }) });
    await initialize(port);
    await initialize(port);
    const [a, b] = connected.map((c) => c.context!);
    expect(a).not.toBe(b);
    expect(a!.auth).toEqual({ user: 'u0' });
    expect(b!.auth).toEqual({ user: 'u1' });
  });
});

describe('Streamable HTTP on node:http: what an open GET stream costs (counted)', () => {
  it('shares one keep-alive timer between streams and makes no web stream for them', async () => {
    const { port } = await start({ keepAliveInterval: 30 });
    const ids: string[] = [];
    for (let i = 0; i < 5; i++) ids.push(await initialize(port));
    const intervals = vi.spyOn(globalThis, 'setInterval');
    const Native = globalThis.ReadableStream;
    let webStreams = 0;
    globalThis.ReadableStream = class extends Native<unknown> {
      constructor(...args: ConstructorParameters<typeof ReadableStream>) {
        super(...args);
        webStreams++;
      }
    } as typeof ReadableStream;
    const streams: { text: () => string }[] = [];
    try {
      for (const id of ids) streams.push(await openGet(port, id));
    } finally {
      globalThis.ReadableStream = Native;
    }
    // One timer for the five streams (the first one starts it), none per stream.
    expect(intervals).toHaveBeenCalledTimes(1);
    expect(webStreams).toBe(0);
    // Every stream still gets its keep-alive comments from the shared timer.
    await until(() => streams.every((s) => s.text().includes(': keep-alive\n\n')));
    expect(intervals).toHaveBeenCalledTimes(1);
  });
});

describe('Streamable HTTP: per-request headers stay with their request', () => {
  it("does not apply the starting request's Jsonrpc-Timeout to the session's later calls", async () => {
    const server = createServer({ callContext: true });
    server.method('initialize', () => ({ protocolVersion: '2025-06-18', capabilities: {} }));
    server.method('ping', () => 'pong');
    const handler = createStreamableHttpNodeHandler(server);
    handlers.push(handler);
    const { port } = await serve(handler);
    const id = await initialize(port, { 'jsonrpc-timeout': '50', 'jsonrpc-meta': '{"a":1}' });
    await new Promise((resolve) => setTimeout(resolve, 120));
    const answer = await rawExchange(
      port,
      post('{"jsonrpc":"2.0","id":1,"method":"ping"}', { 'mcp-session-id': id }),
    );
    expect(JSON.parse(answer.body)).toEqual({ jsonrpc: '2.0', id: 1, result: 'pong' });
  });
});
