// Streaming-HTTP sessions across processes: two server processes share sessions and events in a
// real Redis, behind a round-robin proxy that alternates them on every request.
import { type ChildProcess, spawn } from 'node:child_process';
import {
  createServer as createHttpServer,
  type Server as HttpServer,
  request as httpRequest,
} from 'node:http';
import type { AddressInfo } from 'node:net';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { findRedisServer, REDIS_SERVER_INSTALL_HINT } from '@jsonrpc-kit/redis/testing';
import { createSseParser, type SseEvent } from '@jsonrpc-kit/transport-http';
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

/** A round-robin reverse proxy: request n goes to backend n % 2; streams pass through. */
async function roundRobin(backends: readonly string[]) {
  let next = 0;
  const hits: number[] = [];
  const server: HttpServer = createHttpServer((req, res) => {
    const index = next++ % backends.length;
    hits.push(index);
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
    req.pipe(upstream);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/mcp`,
    hits,
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
    const start = proxy.hits.length;
    const parity = (n: number) => (start + n) % 2; // which backend the n-th request reaches

    // 1 (A): initialize starts the session.
    const init = await post(
      undefined,
      '{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"raw","version":"0"}}}',
    );
    expect(init.status).toBe(200);
    const id = init.response.headers.get('mcp-session-id')!;
    expect(id).toMatch(/^[0-9a-f-]{36}$/);
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
});
