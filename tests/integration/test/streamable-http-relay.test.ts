// The Streamable HTTP handler's relay (`sessions.relay`) on a real Redis: two endpoints share
// sessions, events and a Redis fan-out; a client's answer to a server→client request, and a
// cancellation, posted to the endpoint that did not send the request (or does not run the call)
// reach the one that did, through Redis, and only then.
import {
  createServer as createHttpServer,
  type Server as HttpServer,
  type IncomingMessage,
  type ServerResponse,
} from 'node:http';
import type { AddressInfo } from 'node:net';
import { mcpProfile } from '@jsonrpc-kit/core';
import {
  createRedisEventStore,
  createRedisFanout,
  createRedisSessionStore,
  type RedisFanout,
} from '@jsonrpc-kit/redis';
import { createServer } from '@jsonrpc-kit/server';
import {
  ANSWER_RELAY_TOPIC,
  createSseParser,
  createStreamableHttpNodeHandler,
  type SseEvent,
} from '@jsonrpc-kit/transport-http/node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { skipReason, useRedisServer } from '../../../packages/redis/test/redis-server.js';

interface Endpoint {
  readonly url: string;
  /** The calls of `wait` this endpoint started, and those it saw cancelled. */
  readonly started: string[];
  readonly cancelled: string[];
  close(): Promise<void>;
}

async function startEndpoint(redisUrl: string, name: string): Promise<Endpoint> {
  const started: string[] = [];
  const cancelled: string[] = [];
  const server = createServer({ profile: mcpProfile });
  server.method('initialize', () => ({ protocolVersion: '2025-06-18', capabilities: {} }));
  // Asks the client, and answers with what it said and who asked.
  server.method('ask', async (_params, ctx) => {
    const roots = await ctx.peer!.request('roots/list', {}, { timeout: 5000 });
    return { asked: name, roots };
  });
  // Runs until cancelled (at most 5 s).
  server.method('wait', async (params: { tag: string }, ctx) => {
    started.push(params.tag);
    await new Promise<void>((resolve) => {
      const timer = setTimeout(resolve, 5000);
      ctx.signal.addEventListener('abort', () => {
        clearTimeout(timer);
        cancelled.push(params.tag);
        resolve();
      });
    });
    return 'not cancelled';
  });
  const url = redisUrl;
  const sessions = await createRedisSessionStore({ url });
  const events = await createRedisEventStore({ url });
  const relay = await createRedisFanout({ url });
  const handler = createStreamableHttpNodeHandler(server, {
    sessions: { store: sessions, relay },
    eventStore: events,
    keepAliveInterval: 0,
  });
  const http: HttpServer = createHttpServer((req: IncomingMessage, res: ServerResponse) =>
    handler(req, res),
  );
  await new Promise<void>((resolve) => http.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(http.address() as AddressInfo).port}/mcp`,
    started,
    cancelled,
    async close() {
      http.closeAllConnections();
      http.close();
      await handler.close();
      await server.close();
      await Promise.all([sessions.close(), events.close(), relay.close()]);
    },
  };
}

const JSON_AND_SSE = 'application/json, text/event-stream';

function post(url: string, body: string, session?: string, accept = JSON_AND_SSE) {
  return fetch(url, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      accept,
      ...(session === undefined ? {} : { 'mcp-session-id': session }),
    },
    body,
    signal: AbortSignal.timeout(8000),
  });
}

/** The events of an event-stream answer as they come, and a wait for the n-th one. */
function eventsOf(response: Response) {
  const events: SseEvent[] = [];
  const parser = createSseParser((event) => events.push(event));
  const reader = response.body!.getReader();
  const decoder = new TextDecoder();
  const done = (async () => {
    for (;;) {
      const { value, done: end } = await reader.read();
      if (end) return;
      parser.push(decoder.decode(value, { stream: true }));
    }
  })().catch(() => {});
  return { events, done };
}

describe.skipIf(skipReason !== undefined)('the Streamable HTTP relay on Redis', () => {
  const redis = useRedisServer();
  let a: Endpoint;
  let b: Endpoint;
  let watcher: RedisFanout;
  const published: string[] = [];

  beforeAll(async () => {
    [a, b] = await Promise.all([startEndpoint(redis.url, 'a'), startEndpoint(redis.url, 'b')]);
    // What goes through Redis, seen from a third connection.
    watcher = await createRedisFanout({ url: redis.url });
    await watcher.subscribeText(ANSWER_RELAY_TOPIC, (text) => published.push(text));
  });
  afterAll(async () => {
    await a?.close();
    await b?.close();
    await watcher?.close();
  });

  async function initialize(): Promise<string> {
    const init = await post(
      a.url,
      '{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{"roots":{}}}}',
    );
    expect(init.status).toBe(200);
    await init.text();
    return init.headers.get('mcp-session-id')!;
  }

  /** Posts `ask` to A; resolves the request A sent the client, and the rest of the stream. */
  async function askOnA(session: string, id: number) {
    const asking = await post(a.url, `{"jsonrpc":"2.0","id":${id},"method":"ask"}`, session);
    expect(asking.headers.get('content-type')).toMatch(/^text\/event-stream/);
    const stream = eventsOf(asking);
    await expect.poll(() => stream.events.length, { timeout: 3000 }).toBe(1);
    const request = JSON.parse(stream.events[0]!.data) as { id: number; method: string };
    expect(request.method).toBe('roots/list');
    return { request, stream };
  }

  it('an answer posted to the other process reaches the one that asked, through Redis', async () => {
    const session = await initialize();
    const { request, stream } = await askOnA(session, 2);
    const before = published.length;
    const answered = await post(
      b.url,
      `{"jsonrpc":"2.0","id":${request.id},"result":{"roots":[{"uri":"file:///b"}]}}`,
      session,
    );
    expect(answered.status).toBe(202);
    await stream.done;
    expect(stream.events).toHaveLength(2);
    expect(JSON.parse(stream.events[1]!.data)).toEqual({
      jsonrpc: '2.0',
      id: 2,
      result: { asked: 'a', roots: { roots: [{ uri: 'file:///b' }] } },
    });
    expect(published.slice(before)).toHaveLength(1);
    expect(published[before]).toBe(
      `${session}\n{"jsonrpc":"2.0","id":${request.id},"result":{"roots":[{"uri":"file:///b"}]}}`,
    );
  });

  it('an answer posted to the process that asked stays there; one nobody asked for goes nowhere', async () => {
    const session = await initialize();
    const { request, stream } = await askOnA(session, 3);
    const before = published.length;
    await post(a.url, `{"jsonrpc":"2.0","id":${request.id},"result":{"roots":[]}}`, session);
    await stream.done;
    expect(JSON.parse(stream.events[1]!.data).result).toEqual({ asked: 'a', roots: { roots: [] } });
    // An answer to nothing this process sent is published, and no process takes it.
    const stray = await post(b.url, '{"jsonrpc":"2.0","id":999,"result":{}}', session);
    expect(stray.status).toBe(202);
    await expect.poll(() => published.length, { timeout: 3000 }).toBe(before + 1);
    expect(published[before]).toContain('"id":999');
  });

  it('a cancellation posted to the other process aborts the call where it runs', async () => {
    const session = await initialize();
    const waiting = post(
      a.url,
      '{"jsonrpc":"2.0","id":4,"method":"wait","params":{"tag":"w4"}}',
      session,
      'application/json',
    );
    // Once the call runs on A, B gets the cancellation.
    await expect.poll(() => a.started, { timeout: 3000 }).toEqual(['w4']);
    const cancel = await post(
      b.url,
      '{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":4}}',
      session,
    );
    expect(cancel.status).toBe(202);
    await expect.poll(() => a.cancelled, { timeout: 3000 }).toEqual(['w4']);
    expect(b.cancelled).toEqual([]);
    // MCP: a cancelled call gets no answer; its POST ends without one.
    const ended = await waiting;
    expect(ended.status).toBe(202);
  });
});
