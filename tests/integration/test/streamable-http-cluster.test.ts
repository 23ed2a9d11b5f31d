// Streaming-HTTP sessions across processes: two server processes share sessions and events in a
// real Redis, behind a round-robin proxy that alternates them on every request.
import { type ChildProcess, spawn } from 'node:child_process';
import {
  createServer as createHttpServer,
  type Server as HttpServer,
  request as httpRequest,
  type IncomingMessage,
  type ServerResponse,
} from 'node:http';
import type { AddressInfo } from 'node:net';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { createClient } from '@jsonrpc-kit/client';
import { findRedisServer, REDIS_SERVER_INSTALL_HINT } from '@jsonrpc-kit/redis/testing';
import {
  createSseParser,
  createStreamableHttpTransport,
  type SseEvent,
} from '@jsonrpc-kit/transport-http';
import { Client as McpClient } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { useRedisServer } from '../../../packages/redis/test/redis-server.js';

const skip = findRedisServer() === undefined;
if (skip) console.warn(`${REDIS_SERVER_INSTALL_HINT}: the streaming-HTTP cluster tests skip`);

const nodeScript = fileURLToPath(new URL('./redis-fixtures/streamable-node.mjs', import.meta.url));

function startNode(redisUrl: string, name: string, children: ChildProcess[]): Promise<string> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [nodeScript, redisUrl, name], {
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    children.push(child);
    const timer = setTimeout(() => reject(new Error(`process ${name} did not start`)), 10_000);
    createInterface({ input: child.stdout! }).once('line', (line) => {
      clearTimeout(timer);
      resolve(line);
    });
    child.once('exit', (code) => reject(new Error(`process ${name} exited with ${code}`)));
  });
}

/**
 * A round-robin reverse proxy: each request goes to the next backend in turn; streams pass
 * through. GET streams can be dropped, and held (a held GET takes its turn when released).
 */
async function roundRobin(backends: readonly string[]) {
  const state = {
    next: 0,
    hold: false,
    held: [] as (() => void)[],
    streams: [] as { backend: number; lastEventId: string | undefined; drop: () => void }[],
  };
  const forward = (req: IncomingMessage, res: ServerResponse): void => {
    const index = state.next++ % backends.length;
    const target = new URL(backends[index]!);
    const upstream = httpRequest(
      { host: target.hostname, port: target.port, path: target.pathname, method: req.method },
      (answer) => {
        res.writeHead(answer.statusCode ?? 502, answer.headers);
        res.flushHeaders();
        answer.pipe(res);
      },
    );
    for (let i = 0; i < req.rawHeaders.length; i += 2) {
      const header = req.rawHeaders[i]!;
      if (header.toLowerCase() !== 'host') upstream.setHeader(header, req.rawHeaders[i + 1]!);
    }
    upstream.setHeader('host', target.host);
    upstream.on('error', () => res.destroy());
    // The client went away: so does the upstream exchange (a dropped stream reaches the backend).
    res.on('close', () => upstream.destroy());
    if (req.method === 'GET') {
      const header = req.headers['last-event-id'];
      state.streams.push({
        backend: index,
        lastEventId: typeof header === 'string' ? header : undefined,
        drop: () => res.destroy(),
      });
    }
    req.pipe(upstream);
  };
  const server: HttpServer = createHttpServer((req, res) => {
    if (req.method === 'GET' && state.hold) state.held.push(() => forward(req, res));
    else forward(req, res);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/mcp`,
    state,
    /** The backend the next request reaches. */
    nextBackend: () => state.next % backends.length,
    /** Drops every open GET stream. */
    dropStreams: () => {
      for (const stream of state.streams) stream.drop();
    },
    /** Lets the held GETs through, each taking its turn. */
    release: () => {
      state.hold = false;
      for (const go of state.held.splice(0)) go();
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** Reads an SSE response's events as they come; `drop()` aborts it. */
function readEvents(response: Response, abort: AbortController) {
  const events: SseEvent[] = [];
  const parser = createSseParser((event) => events.push(event));
  const reader = response.body!.getReader();
  const decoder = new TextDecoder();
  const done = (async () => {
    try {
      for (let i = 0; i < 10_000; i++) {
        const { value, done } = await reader.read();
        if (done) return;
        parser.push(decoder.decode(value, { stream: true }));
      }
    } catch {
      // aborted
    }
  })();
  return {
    events,
    drop: async () => {
      abort.abort();
      await done;
    },
  };
}

describe.skipIf(skip)('streaming-HTTP sessions across two processes on Redis', () => {
  const redis = useRedisServer();
  const children: ChildProcess[] = [];
  let proxy: Awaited<ReturnType<typeof roundRobin>>;
  const open: (() => Promise<void>)[] = [];

  beforeAll(async () => {
    const backends = await Promise.all(['a', 'b'].map((n) => startNode(redis.url, n, children)));
    proxy = await roundRobin(backends);
  });
  afterEach(async () => {
    for (const close of open.splice(0)) await close();
    proxy.state.streams.length = 0;
  });
  afterAll(async () => {
    await proxy?.close();
    for (const child of children) if (child.exitCode === null) child.kill('SIGKILL');
  });

  it('raw bytes: initialize on A, call on B, drop the GET stream, resume it on the other process: nothing lost or duplicated', async () => {
    const headers = {
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
    };
    const sessionHeaders = (id: string, accept = headers.accept) => ({
      ...headers,
      accept,
      'mcp-session-id': id,
    });
    const post = async (id: string | undefined, body: string, accept?: string) => {
      const response = await fetch(proxy.url, {
        method: 'POST',
        headers: id === undefined ? headers : sessionHeaders(id, accept),
        body,
        signal: AbortSignal.timeout(5000),
      });
      return { status: response.status, text: await response.text(), response };
    };
    const start = proxy.state.next;
    const parity = (n: number) => (start + n) % 2; // which backend the n-th request reaches

    // 1 (A): initialize starts the session.
    const init = await post(
      undefined,
      '{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"raw","version":"0"}}}',
    );
    expect(init.status).toBe(200);
    const id = init.response.headers.get('mcp-session-id')!;
    expect(id).toMatch(/^[A-Za-z0-9_-]{22}$/);
    // 2 (B): a notification, 202 on the other process.
    expect((await post(id, '{"jsonrpc":"2.0","method":"notifications/initialized"}')).status).toBe(
      202,
    );
    // 3 (A): the GET stream.
    const firstAbort = new AbortController();
    const get = await fetch(proxy.url, {
      headers: { accept: 'text/event-stream', 'mcp-session-id': id },
      signal: firstAbort.signal,
    });
    expect(get.status).toBe(200);
    const first = readEvents(get, firstAbort);
    const streamOn = parity(2);
    // 4 (B): a call on the other process continues the session.
    const call = await post(id, '{"jsonrpc":"2.0","id":2,"method":"whoami"}', 'application/json');
    expect(call.text).toBe(`{"jsonrpc":"2.0","id":2,"result":"${['a', 'b'][parity(3)]}"}`);
    expect(parity(3)).not.toBe(streamOn);
    // 5 (A, the stream's process): one push, seen live.
    const push1 = await post(
      id,
      '{"jsonrpc":"2.0","id":3,"method":"emitNow","params":{"values":[1]}}',
      'application/json',
    );
    expect(push1.text).toBe(`{"jsonrpc":"2.0","id":3,"result":"${['a', 'b'][streamOn]}"}`);
    await expect.poll(() => first.events.length, { timeout: 3000 }).toBe(1);
    await first.drop();
    // 6 (B) and 7 (A): pushes made while no stream is open, on the stream's process.
    expect(
      (await post(id, '{"jsonrpc":"2.0","id":4,"method":"whoami"}', 'application/json')).status,
    ).toBe(200);
    const push2 = await post(
      id,
      '{"jsonrpc":"2.0","id":5,"method":"emitNow","params":{"values":[2,3]}}',
      'application/json',
    );
    expect(push2.text).toContain(`"result":"${['a', 'b'][streamOn]}"`);
    // 8 (B): the resumption lands on the other process and replays them from Redis.
    const secondAbort = new AbortController();
    const resumed = await fetch(proxy.url, {
      headers: {
        accept: 'text/event-stream',
        'mcp-session-id': id,
        'last-event-id': first.events[0]!.id!,
      },
      signal: secondAbort.signal,
    });
    expect(parity(7)).not.toBe(streamOn);
    expect(resumed.status).toBe(200);
    const second = readEvents(resumed, secondAbort);
    open.push(second.drop);
    // 9 (A), 10 (B): a push on the process now holding the resumed stream arrives live.
    await post(id, '{"jsonrpc":"2.0","id":6,"method":"whoami"}', 'application/json');
    const push3 = await post(
      id,
      '{"jsonrpc":"2.0","id":7,"method":"emitNow","params":{"values":[4]}}',
      'application/json',
    );
    expect(push3.text).toContain(`"result":"${['a', 'b'][parity(9)]}"`);
    await expect.poll(() => second.events.length, { timeout: 3000 }).toBe(3);

    const values = [...first.events, ...second.events].map(
      (event) => (JSON.parse(event.data) as { params: { value: number } }).params.value,
    );
    expect(values).toEqual([1, 2, 3, 4]);
    const ids = [...first.events, ...second.events].map((event) => event.id);
    expect(new Set(ids).size).toBe(4);
    // Every event id names the one stream.
    const stream = ids[0]!.slice(0, ids[0]!.lastIndexOf('_'));
    for (const eventId of ids) expect(eventId!.startsWith(`${stream}_`)).toBe(true);

    // DELETE on one process ends the session on both.
    const deleted = await fetch(proxy.url, {
      method: 'DELETE',
      headers: { 'mcp-session-id': id },
    });
    expect(deleted.status).toBe(200);
    for (let i = 0; i < 2; i++) {
      const after = await post(
        id,
        '{"jsonrpc":"2.0","id":8,"method":"whoami"}',
        'application/json',
      );
      expect(after.status).toBe(404);
    }
  });

  /** A client under test: calls tools, and the values of the log messages it received. */
  interface Subject {
    call(tool: string, values?: number[]): Promise<string>;
    readonly values: number[];
    close(): Promise<void>;
  }

  /** The steps both clients go through; see the raw-bytes test for the same with fetch. */
  async function scenario(subject: Subject) {
    open.push(() => subject.close());
    // The session's GET stream is open, on some process: the holder.
    await expect.poll(() => proxy.state.streams.length, { timeout: 5000 }).toBeGreaterThan(0);
    const firstStream = proxy.state.streams.at(-1)!;
    const holder = firstStream.backend;
    const other = 1 - holder;
    const toward = async (backend: number) => {
      for (let i = 0; i < 2 && proxy.nextBackend() !== backend; i++) await subject.call('whoami');
      expect(proxy.nextBackend()).toBe(backend);
    };
    // A call reaches either process and continues the session.
    const answers = [await subject.call('whoami'), await subject.call('whoami')].sort();
    expect(answers).toEqual(['a', 'b']);
    // Pushed on the holder: arrives live.
    await toward(holder);
    await subject.call('emit', [1]);
    await toward(holder);
    await subject.call('flush');
    await expect.poll(() => subject.values, { timeout: 3000 }).toEqual([1]);
    // The stream drops; its reconnection waits at the balancer meanwhile.
    const streamsBefore = proxy.state.streams.length;
    proxy.state.hold = true;
    proxy.dropStreams();
    await expect.poll(() => proxy.state.held.length, { timeout: 5000 }).toBe(1);
    // Pushed on the holder while no stream is open: kept in Redis.
    await toward(holder);
    await subject.call('emit', [2, 3]);
    await toward(holder);
    await subject.call('flush');
    // The reconnection lands on the other process, which replays them.
    await toward(other);
    proxy.release();
    await expect.poll(() => proxy.state.streams.length, { timeout: 3000 }).toBe(streamsBefore + 1);
    const resumed = proxy.state.streams.at(-1)!;
    expect(resumed.backend).toBe(other);
    expect(resumed.lastEventId).toMatch(/_/);
    await expect.poll(() => subject.values, { timeout: 3000 }).toEqual([1, 2, 3]);
    // The other process now holds the stream: its pushes arrive live.
    await toward(other);
    await subject.call('emit', [4]);
    await toward(other);
    await subject.call('flush');
    await expect.poll(() => subject.values, { timeout: 3000 }).toEqual([1, 2, 3, 4]);
    // Nothing twice, even a while later.
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(subject.values).toEqual([1, 2, 3, 4]);
  }

  const itemValue = (params: unknown): number => (params as { data: { value: number } }).data.value;

  it('the kit client: initialize, calls on both processes, its GET stream resumed on the other', async () => {
    const values: number[] = [];
    const client = createClient(
      createStreamableHttpTransport({
        url: proxy.url,
        stream: true,
        reconnect: { delay: 20, maxDelay: 100, maxAttempts: 20 },
      }),
      {
        onNotification: (n) => {
          if (n.method === 'notifications/message') values.push(itemValue(n.params));
        },
      },
    );
    await client.request('initialize', {
      protocolVersion: '2025-06-18',
      capabilities: {},
      clientInfo: { name: 'kit', version: '0' },
    });
    await scenario({
      values,
      async call(tool, list) {
        const answer = (await client.request('tools/call', {
          name: tool,
          arguments: { values: list ?? [] },
        })) as { content: { text: string }[] };
        return answer.content[0]!.text;
      },
      close: () => client.close(),
    });
  });

  it('the MCP SDK client: the same, with its own reconnection', async () => {
    const values: number[] = [];
    const client = new McpClient({ name: 'sdk', version: '0' });
    client.fallbackNotificationHandler = async (n) => {
      if (n.method === 'notifications/message') values.push(itemValue(n.params));
    };
    await client.connect(
      new StreamableHTTPClientTransport(new URL(proxy.url), {
        reconnectionOptions: {
          initialReconnectionDelay: 20,
          maxReconnectionDelay: 100,
          reconnectionDelayGrowFactor: 1.5,
          maxRetries: 20,
        },
      }),
    );
    await scenario({
      values,
      async call(tool, list) {
        const answer = await client.callTool({ name: tool, arguments: { values: list ?? [] } });
        return (answer.content as { text: string }[])[0]!.text;
      },
      close: () => client.close(),
    });
  });
});
