import { type Client, createClient } from '@jsonrpc-kit/client';
import {
  ConnectionClosedError,
  JsonRpcError,
  type McpProgress,
  mcpProfile,
} from '@jsonrpc-kit/core';
import { streamCall, streams } from '@jsonrpc-kit/extensions';
import { type Connection, createServer, type Server } from '@jsonrpc-kit/server';
import {
  createWebSocketServer,
  createWebSocketTransport,
  type JsonRpcWebSocketServer,
} from '@jsonrpc-kit/transport-ws';
import { afterEach, describe, expect, it } from 'vitest';

const cleanups: (() => unknown)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) {
    try {
      await cleanup();
    } catch {
      // Already closed.
    }
  }
});

interface Probe {
  pulled: number;
  returned: number;
}

function streamingServer(probe: Probe): Server {
  const server = createServer({ profile: mcpProfile });
  cleanups.push(streams(server));
  server.method('count', async function* ({ to }: { to: number }) {
    try {
      for (let i = 1; i <= to; i++) {
        probe.pulled++;
        yield { i, text: `item ${i}` };
      }
    } finally {
      probe.returned++;
    }
  });
  server.method('forever', async function* () {
    try {
      for (let i = 0; ; i++) {
        probe.pulled++;
        yield i;
      }
    } finally {
      probe.returned++;
    }
  });
  server.method('failAfter', async function* ({ n }: { n: number }) {
    for (let i = 0; i < n; i++) yield i;
    throw new JsonRpcError(4001, 'disk on fire');
  });
  server.method('index', async ({ files }: { files: number }, ctx) => {
    const report = ctx.progress;
    for (let i = 1; i <= files; i++) await report?.({ progress: i, total: files });
    return `indexed ${files}`;
  });
  return server;
}

async function serve(server: Server): Promise<JsonRpcWebSocketServer<Connection>> {
  const wss = createWebSocketServer({ server, port: 0, host: '127.0.0.1' });
  cleanups.push(() => wss.close({ timeout: 50 }));
  await wss.ready;
  return wss;
}

function connect(port: number): Client {
  const client = createClient(
    createWebSocketTransport({ url: `ws://127.0.0.1:${port}`, reconnect: false }),
  );
  cleanups.push(() => client.close());
  return client;
}

describe('extensions over WebSocket', () => {
  it('streams 10k items through real sockets', async () => {
    const probe = { pulled: 0, returned: 0 };
    const wss = await serve(streamingServer(probe));
    const client = connect(wss.port);
    let count = 0;
    let last = 0;
    for await (const item of streamCall<{ i: number }>(
      client,
      'count',
      { to: 10_000 },
      { window: 256 },
    )) {
      expect(item.i).toBe(last + 1);
      last = item.i;
      count++;
    }
    expect(count).toBe(10_000);
    expect(probe.returned).toBe(1);
    expect(client.pending).toBe(0);
  });

  it('cancels the producer on early break', async () => {
    const probe = { pulled: 0, returned: 0 };
    const wss = await serve(streamingServer(probe));
    const client = connect(wss.port);
    let seen = 0;
    for await (const _ of streamCall(client, 'forever', undefined, { window: 16 })) {
      if (++seen === 100) break;
    }
    await expect.poll(() => probe.returned).toBe(1);
    expect(probe.pulled).toBeLessThanOrEqual(100 + 32);
  });

  it('throws the producer error in the consumer loop', async () => {
    const probe = { pulled: 0, returned: 0 };
    const wss = await serve(streamingServer(probe));
    const client = connect(wss.port);
    const seen: number[] = [];
    const error = await (async () => {
      for await (const n of streamCall<number>(client, 'failAfter', { n: 50 }, { window: 16 }))
        seen.push(n);
    })().catch((e: unknown) => e);
    expect(seen).toHaveLength(50);
    expect(error).toBeInstanceOf(JsonRpcError);
    expect(error).toMatchObject({ code: 4001, message: 'disk on fire' });
  });

  it('ends both sides when the server drops the socket', async () => {
    const probe = { pulled: 0, returned: 0 };
    const wss = await serve(streamingServer(probe));
    const client = connect(wss.port);
    const iterator = streamCall<number>(client, 'forever', undefined, { window: 8 });
    await iterator.next();
    await [...wss.connections][0]!.close();
    const error = await (async () => {
      for (let i = 0; i < 1000; i++) await iterator.next();
    })().catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ConnectionClosedError);
    await expect.poll(() => probe.returned).toBe(1);
  });

  it('ends the producer when the client goes away', async () => {
    const probe = { pulled: 0, returned: 0 };
    const wss = await serve(streamingServer(probe));
    const client = connect(wss.port);
    const iterator = streamCall<number>(client, 'forever', undefined, { window: 8 });
    await iterator.next();
    await client.close();
    await expect.poll(() => probe.returned).toBe(1);
    await expect.poll(() => wss.connections.size).toBe(0);
  });

  it('routes MCP progress notifications to onProgress', async () => {
    const probe = { pulled: 0, returned: 0 };
    const wss = await serve(streamingServer(probe));
    const client = createClient(
      createWebSocketTransport({ url: `ws://127.0.0.1:${wss.port}`, reconnect: false }),
      { profile: mcpProfile, sendCancel: true },
    );
    cleanups.push(() => client.close());
    const seen: McpProgress[] = [];
    const result = await client.request('index', { files: 5 }, { onProgress: (p) => seen.push(p) });
    expect(result).toBe('indexed 5');
    expect(seen.map((p) => p.progress)).toEqual([1, 2, 3, 4, 5]);
    expect(seen.every((p) => p.total === 5)).toBe(true);
  });
});
