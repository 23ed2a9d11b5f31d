import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import type { ConnectionHandler } from '@jsonrpc-kit/core/engine';
import { createServer } from '@jsonrpc-kit/server';
import { afterEach, describe, expect, it } from 'vitest';
import { createMemoryEventStore, type EventStore } from './event-store.js';
import { createMemorySessionStore, type SessionStore } from './session-store.js';
import { createSseParser, type SseEvent } from './sse.js';
import {
  createStreamableHttpHandler,
  type StreamableHttpHandler,
  type StreamableHttpHandlerOptions,
} from './streamable-handler.js';

const handlers: StreamableHttpHandler[] = [];
afterEach(async () => {
  await Promise.all(handlers.splice(0).map((h) => h.close()));
});

const URL_ = 'http://127.0.0.1/mcp';
const init =
  '{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-06-18"}}';

/** One "process": a server and its streaming handler on the given stores. */
/** How many connections each "process" opened, by name. */
const connects = new Map<string, number>();

function process_(name: string, options: StreamableHttpHandlerOptions) {
  const server = createServer();
  connects.set(name, 0);
  server.method('initialize', () => ({ protocolVersion: '2025-06-18', capabilities: {} }));
  server.method('who', () => name);
  server.method('push', async ({ values }: { values: number[] }, ctx) => {
    for (const value of values) await ctx.peer!.notify('tick', { value });
    return 'ok';
  });
  const counted: ConnectionHandler = {
    maxMessageBytes: server.maxMessageBytes,
    connect(transport, context) {
      connects.set(name, (connects.get(name) ?? 0) + 1);
      return server.connect(transport, context);
    },
  };
  const handler = createStreamableHttpHandler(counted, options);
  handlers.push(handler);
  return handler;
}

function post(handler: StreamableHttpHandler, body: string, session?: string): Promise<Response> {
  const headers: Record<string, string> = {
    'content-type': 'application/json',
    accept: 'application/json',
  };
  if (session !== undefined) headers['mcp-session-id'] = session;
  return handler(new Request(URL_, { method: 'POST', headers, body }));
}

function openStream(handler: StreamableHttpHandler, session: string, lastEventId?: string) {
  const headers: Record<string, string> = {
    accept: 'text/event-stream',
    'mcp-session-id': session,
  };
  if (lastEventId !== undefined) headers['last-event-id'] = lastEventId;
  return handler(new Request(URL_, { headers }));
}

async function readSome(response: Response, count: number): Promise<SseEvent[]> {
  const events: SseEvent[] = [];
  const parser = createSseParser((event) => events.push(event));
  const reader = response.body!.getReader();
  const decoder = new TextDecoder();
  for (let i = 0; i < 100 && events.length < count; i++) {
    const { value, done } = await reader.read();
    if (done) break;
    parser.push(decoder.decode(value, { stream: true }));
  }
  await reader.cancel();
  return events;
}

describe('createMemorySessionStore', () => {
  it('keeps a record until its ttl passes without a touch; delete forgets it', async () => {
    let now = 0;
    const store = createMemorySessionStore(() => now);
    store.create('s', {}, 100);
    now = 90;
    expect(await store.lookup('s')).toEqual({});
    store.touch('s', 100, { streamId: 'g' });
    now = 180;
    expect(await store.lookup('s')).toEqual({ streamId: 'g' });
    now = 291;
    expect(await store.lookup('s')).toBeUndefined();
    store.touch('s', 100);
    expect(await store.lookup('s')).toBeUndefined();
    // A lookup with a ttl renews it.
    store.create('r', {}, 100);
    now = 380;
    expect(await store.lookup('r', 100)).toEqual({});
    now = 470;
    expect(await store.lookup('r')).toEqual({});
    store.create('t', {}, 100);
    store.delete('t');
    expect(await store.lookup('t')).toBeUndefined();
  });

  it('lets go of expired sessions nobody looks up again, as new ones come', async () => {
    setFlagsFromString('--expose-gc');
    const gc = runInNewContext('gc') as () => void;
    let now = 0;
    const store = createMemorySessionStore(() => now);
    // A handler that closes an idle session leaves its record to expire in the store (another
    // process may still serve it): these 2,000 are never looked up again.
    const records: WeakRef<object>[] = [];
    const createOld = (i: number): void => {
      const record = {};
      records.push(new WeakRef(record));
      store.create(`old${i}`, record, 100);
    };
    for (let i = 0; i < 2_000; i++) createOld(i);
    store.create('kept', {}, 10_000);
    now = 1_000;
    for (let i = 0; i < 3_000; i++) store.create(`new${i}`, {}, 100_000);
    // A WeakRef holds its target until the job that made it ends.
    await new Promise((resolve) => setTimeout(resolve, 0));
    gc();
    gc();
    expect(records.filter((r) => r.deref() !== undefined)).toHaveLength(0);
    expect(await store.lookup('kept')).toEqual({});
    expect(await store.lookup('new0')).toEqual({});
    expect(await store.lookup('old0')).toBeUndefined();
  });
});

describe('sessions shared by two handlers (two processes on one store)', () => {
  const shared = (): { store: SessionStore; eventStore: EventStore } => ({
    store: createMemorySessionStore(),
    eventStore: createMemoryEventStore(),
  });

  it('a session started on one continues on the other; DELETE on either ends it on both', async () => {
    const { store, eventStore } = shared();
    const a = process_('a', { sessions: { store }, eventStore });
    const b = process_('b', { sessions: { store }, eventStore });
    const started = await post(a, init);
    const id = started.headers.get('mcp-session-id')!;
    expect(id).toBeTruthy();
    const onB = await post(b, '{"jsonrpc":"2.0","id":1,"method":"who"}', id);
    expect(onB.status).toBe(200);
    expect(onB.headers.get('mcp-session-id')).toBe(id);
    expect(await onB.text()).toBe('{"jsonrpc":"2.0","id":1,"result":"b"}');
    expect(b.sessions).toBe(1);
    const deleted = await b(
      new Request(URL_, { method: 'DELETE', headers: { 'mcp-session-id': id } }),
    );
    expect(deleted.status).toBe(200);
    const onA = await post(a, '{"jsonrpc":"2.0","id":2,"method":"who"}', id);
    expect(onA.status).toBe(404);
    expect(await onA.text()).toBe(
      '{"jsonrpc":"2.0","id":null,"error":{"code":-32001,"message":"Session not found"}}',
    );
    expect(a.sessions).toBe(0);
  });

  it('two requests of a session at once on the other handler continue it once', async () => {
    const { store, eventStore } = shared();
    const a = process_('a', { sessions: { store }, eventStore });
    const b = process_('b', { sessions: { store }, eventStore });
    const id = (await post(a, init)).headers.get('mcp-session-id')!;
    const answers = await Promise.all(
      [1, 2, 3].map((n) => post(b, `{"jsonrpc":"2.0","id":${n},"method":"who"}`, id)),
    );
    expect(answers.map((answer) => answer.status)).toEqual([200, 200, 200]);
    expect(b.sessions).toBe(1);
    expect(connects.get('b')).toBe(1);
    await b.close();
    expect(b.sessions).toBe(0);
  });

  it('an unknown session is 404 on every handler (the store knows none)', async () => {
    const { store, eventStore } = shared();
    const b = process_('b', { sessions: { store }, eventStore });
    expect((await post(b, '{"jsonrpc":"2.0","id":1,"method":"who"}', 'nope')).status).toBe(404);
    expect(b.sessions).toBe(0);
  });

  it('a dropped GET stream keeps what is pushed meanwhile; the other handler resumes it with Last-Event-ID', async () => {
    const { store, eventStore } = shared();
    const a = process_('a', { sessions: { store }, eventStore, keepAliveInterval: 0 });
    const b = process_('b', { sessions: { store }, eventStore, keepAliveInterval: 0 });
    const id = (await post(a, init)).headers.get('mcp-session-id')!;
    const stream = await openStream(a, id);
    expect(stream.status).toBe(200);
    await post(a, '{"jsonrpc":"2.0","id":1,"method":"push","params":{"values":[1]}}', id);
    const first = await readSome(stream, 1); // reads one event, then drops the stream
    expect(first.map((e) => JSON.parse(e.data).params.value)).toEqual([1]);
    await post(a, '{"jsonrpc":"2.0","id":2,"method":"push","params":{"values":[2,3]}}', id);
    const resumed = await openStream(b, id, first[0]!.id);
    expect(resumed.status).toBe(200);
    await post(b, '{"jsonrpc":"2.0","id":3,"method":"push","params":{"values":[4]}}', id);
    const rest = await readSome(resumed, 3);
    expect(rest.map((e) => JSON.parse(e.data).params.value)).toEqual([2, 3, 4]);
    expect(new Set([...first, ...rest].map((e) => e.id)).size).toBe(4);
  });

  it("another session's Last-Event-ID is refused (404) on every process, with nothing of its stream sent", async () => {
    const { store, eventStore } = shared();
    const a = process_('a', { sessions: { store }, eventStore, keepAliveInterval: 0 });
    const b = process_('b', { sessions: { store }, eventStore, keepAliveInterval: 0 });
    const alice = (await post(a, init)).headers.get('mcp-session-id')!;
    const bob = (await post(b, init)).headers.get('mcp-session-id')!;
    const stream = await openStream(a, alice);
    await post(a, '{"jsonrpc":"2.0","id":1,"method":"push","params":{"values":[1]}}', alice);
    const first = await readSome(stream, 1);
    await post(a, '{"jsonrpc":"2.0","id":2,"method":"push","params":{"values":[2,3]}}', alice);
    for (const handler of [a, b]) {
      const stolen = await openStream(handler, bob, first[0]!.id);
      expect(stolen.status).toBe(404);
      expect(await stolen.text()).not.toContain('"value"');
    }
    const own = await openStream(b, alice, first[0]!.id);
    expect(own.status).toBe(200);
    const rest = await readSome(own, 2);
    expect(rest.map((e) => JSON.parse(e.data).params.value)).toEqual([2, 3]);
  });

  it('what a process that does not hold the GET stream sends outside a request is stored under it for the resumption', async () => {
    const { store, eventStore } = shared();
    const a = process_('a', { sessions: { store }, eventStore, keepAliveInterval: 0 });
    const b = process_('b', { sessions: { store }, eventStore, keepAliveInterval: 0 });
    const id = (await post(a, init)).headers.get('mcp-session-id')!;
    const stream = await openStream(a, id);
    await post(a, '{"jsonrpc":"2.0","id":1,"method":"push","params":{"values":[1]}}', id);
    const first = await readSome(stream, 1);
    // B continues the session; its JSON-answered request has no stream of its own to carry these.
    const onB = await post(
      b,
      '{"jsonrpc":"2.0","id":2,"method":"push","params":{"values":[2]}}',
      id,
    );
    expect(await onB.text()).toBe('{"jsonrpc":"2.0","id":2,"result":"ok"}');
    const resumed = await openStream(a, id, first[0]!.id);
    await post(a, '{"jsonrpc":"2.0","id":3,"method":"push","params":{"values":[3,4]}}', id);
    const rest = await readSome(resumed, 2);
    expect(rest.map((e) => JSON.parse(e.data).params.value)).toEqual([2, 3]);
  });

  it('with the store down, the sessions of this process go on and others are 503 (not 404: they may exist)', async () => {
    const memory = createMemorySessionStore();
    let down = false;
    const store: SessionStore = {
      create: (id, record, ttl) => memory.create(id, record, ttl),
      lookup: (id) => (down ? Promise.reject(new Error('down')) : memory.lookup(id)),
      touch: (id, ttl, record) =>
        down ? Promise.reject(new Error('down')) : memory.touch(id, ttl, record),
      delete: (id) => memory.delete(id),
    };
    const eventStore = createMemoryEventStore();
    const a = process_('a', { sessions: { store }, eventStore });
    const b = process_('b', { sessions: { store }, eventStore });
    const id = (await post(a, init)).headers.get('mcp-session-id')!;
    down = true;
    const onA = await post(a, '{"jsonrpc":"2.0","id":1,"method":"who"}', id);
    expect(await onA.text()).toBe('{"jsonrpc":"2.0","id":1,"result":"a"}');
    const onB = await post(b, '{"jsonrpc":"2.0","id":2,"method":"who"}', id);
    expect(onB.status).toBe(503);
    expect(await onB.text()).toBe(
      '{"jsonrpc":"2.0","id":null,"error":{"code":-32000,"message":"Service Unavailable: session store"}}',
    );
    down = false;
    expect((await post(b, '{"jsonrpc":"2.0","id":3,"method":"who"}', id)).status).toBe(200);
  });
});
