import { randomUUID } from 'node:crypto';
import { createServer as createHttpServer, type Server as HttpServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createClient } from '@jsonrpc-kit/client';
import { mcpProfile } from '@jsonrpc-kit/core';
import { createServer } from '@jsonrpc-kit/server';
import {
  createStreamableHttpNodeHandler,
  createStreamableHttpTransport,
} from '@jsonrpc-kit/transport-http/node';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { Server as McpServer } from '@modelcontextprotocol/sdk/server/index.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import {
  CallToolRequestSchema,
  ListRootsRequestSchema,
  ListToolsRequestSchema,
} from '@modelcontextprotocol/sdk/types.js';
import { afterEach, describe, expect, it } from 'vitest';

const cleanups: (() => Promise<unknown> | unknown)[] = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

async function listen(server: HttpServer): Promise<string> {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  cleanups.push(
    () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  );
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}/mcp`;
}

/** A small MCP server on the kit: tools `add`, `slow` (progress, cancellable) and `roots`. */
function kitMcpServer(cancelled: string[]) {
  const server = createServer({ profile: mcpProfile });
  server.method('initialize', (params: { protocolVersion: string }) => ({
    protocolVersion: params.protocolVersion,
    capabilities: { tools: {} },
    serverInfo: { name: 'kit', version: '0.0.0' },
  }));
  server.notification('notifications/initialized', () => {});
  server.method('tools/list', () => ({
    tools: [
      { name: 'add', inputSchema: { type: 'object' } },
      { name: 'slow', inputSchema: { type: 'object' } },
      { name: 'roots', inputSchema: { type: 'object' } },
    ],
  }));
  server.method(
    'tools/call',
    async (
      params: {
        name: string;
        arguments?: { a?: number; b?: number; steps?: number };
        _meta?: { progressToken?: string | number };
      },
      ctx,
    ) => {
      const args = params.arguments ?? {};
      if (params.name === 'add') {
        return { content: [{ type: 'text', text: String((args.a ?? 0) + (args.b ?? 0)) }] };
      }
      if (params.name === 'roots') {
        const answer = (await ctx.peer!.request('roots/list')) as { roots: { uri: string }[] };
        return { content: [{ type: 'text', text: answer.roots.map((r) => r.uri).join(',') }] };
      }
      const token = params._meta?.progressToken;
      const steps = args.steps ?? 3;
      for (let i = 1; i <= steps; i++) {
        if (ctx.signal.aborted) {
          cancelled.push(String(ctx.id));
          throw new Error('cancelled');
        }
        if (token !== undefined) {
          await ctx.peer!.notify('notifications/progress', {
            progressToken: token,
            progress: i,
            total: steps,
          });
        }
        await new Promise((resolve) => setTimeout(resolve, steps > 10 ? 20 : 1));
      }
      return { content: [{ type: 'text', text: 'slow done' }] };
    },
  );
  return server;
}

async function sdkClient(
  url: string,
  fetchFn?: (input: string | URL, init?: RequestInit) => Promise<Response>,
): Promise<Client> {
  const client = new Client({ name: 'sdk', version: '1.0.0' }, { capabilities: { roots: {} } });
  client.setRequestHandler(ListRootsRequestSchema, () => ({
    roots: [{ uri: 'file:///a' }, { uri: 'file:///b' }],
  }));
  const transport = new StreamableHTTPClientTransport(new URL(url), {
    ...(fetchFn === undefined ? {} : { fetch: fetchFn }),
    reconnectionOptions: {
      initialReconnectionDelay: 20,
      maxReconnectionDelay: 100,
      reconnectionDelayGrowFactor: 1.5,
      maxRetries: 3,
    },
  });
  await client.connect(transport);
  cleanups.push(() => client.close());
  return client;
}

describe('the MCP SDK client against the kit Streamable HTTP handler', () => {
  async function kit(cancelled: string[] = []) {
    const handler = createStreamableHttpNodeHandler(kitMcpServer(cancelled));
    cleanups.push(() => handler.close());
    return { url: await listen(createHttpServer(handler)), handler };
  }

  it('initializes, lists and calls tools', async () => {
    const { url, handler } = await kit();
    const client = await sdkClient(url);
    expect(handler.sessions).toBe(1);
    const { tools } = await client.listTools();
    expect(tools.map((t) => t.name)).toEqual(['add', 'slow', 'roots']);
    const result = await client.callTool({ name: 'add', arguments: { a: 2, b: 40 } });
    expect(result.content).toEqual([{ type: 'text', text: '42' }]);
  });

  it('reports progress of a tool call on its event stream', async () => {
    const { url } = await kit();
    const client = await sdkClient(url);
    const seen: number[] = [];
    const result = await client.callTool({ name: 'slow', arguments: { steps: 3 } }, undefined, {
      onprogress: (p) => seen.push(p.progress),
    });
    expect(seen).toEqual([1, 2, 3]);
    expect(result.content).toEqual([{ type: 'text', text: 'slow done' }]);
  });

  it('cancels a call: the kit handler sees its signal abort', async () => {
    const cancelled: string[] = [];
    const { url } = await kit(cancelled);
    const client = await sdkClient(url);
    const controller = new AbortController();
    const call = client.callTool({ name: 'slow', arguments: { steps: 200 } }, undefined, {
      signal: controller.signal,
      onprogress: () => {},
    });
    setTimeout(() => controller.abort('stop'), 60);
    await expect(call).rejects.toThrow();
    for (let i = 0; i < 100 && cancelled.length === 0; i++)
      await new Promise((r) => setTimeout(r, 10));
    expect(cancelled).toHaveLength(1);
  });

  it('carries a server→client request (roots/list) and its answer', async () => {
    const { url } = await kit();
    const client = await sdkClient(url);
    const result = await client.callTool({ name: 'roots', arguments: {} });
    expect(result.content).toEqual([{ type: 'text', text: 'file:///a,file:///b' }]);
  });

  it('resumes a dropped tool-call stream with Last-Event-ID and gets every progress and the result', async () => {
    const { url } = await kit();
    let dropped = 0;
    const gets: (string | null)[] = [];

    // Cuts the first tools/call answer stream after its first chunk, as a network failure would.
    const dropping = async (input: string | URL, init?: RequestInit): Promise<Response> => {
      const response = await fetch(input, init);
      if (init?.method === 'GET') gets.push(new Headers(init.headers).get('last-event-id'));
      const body = typeof init?.body === 'string' ? init.body : '';
      if (dropped > 0 || !body.includes('"slow"') || response.body === null) return response;
      dropped++;
      const reader = response.body.getReader();
      let passed = 0;
      const cut = new ReadableStream<Uint8Array>(
        {
          async pull(controller) {
            // One chunk goes through; the next pull finds the connection gone.
            if (passed++ > 0) {
              await reader.cancel();
              controller.error(new TypeError('connection dropped'));
              return;
            }
            const { done, value } = await reader.read();
            if (done) controller.close();
            else controller.enqueue(value);
          },
        },
        { highWaterMark: 0 },
      );
      return new Response(cut, { status: response.status, headers: response.headers });
    };
    const client = await sdkClient(url, dropping);
    const seen: number[] = [];
    const result = await client.callTool({ name: 'slow', arguments: { steps: 12 } }, undefined, {
      onprogress: (p) => seen.push(p.progress),
    });
    expect(dropped).toBe(1);
    expect(gets.some((id) => id !== null)).toBe(true);
    expect(seen).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12]);
    expect(result.content).toEqual([{ type: 'text', text: 'slow done' }]);
  });

  it('ends the session on the SDK transport terminateSession (DELETE)', async () => {
    const { url, handler } = await kit();
    const client = await sdkClient(url);
    await (client.transport as StreamableHTTPClientTransport).terminateSession();
    expect(handler.sessions).toBe(0);
  });
});

describe('the kit client against the MCP SDK StreamableHTTPServerTransport', () => {
  async function sdkServer(): Promise<string> {
    const transports = new Map<string, StreamableHTTPServerTransport>();
    const http = createHttpServer(async (req, res) => {
      const id = req.headers['mcp-session-id'];
      let transport = typeof id === 'string' ? transports.get(id) : undefined;
      if (transport === undefined) {
        transport = new StreamableHTTPServerTransport({
          sessionIdGenerator: () => randomUUID(),
          onsessioninitialized: (sid) => void transports.set(sid, transport!),
        });
        const mcp = new McpServer(
          { name: 'sdk-server', version: '1.0.0' },
          { capabilities: { tools: {} } },
        );
        mcp.setRequestHandler(ListToolsRequestSchema, () => ({
          tools: [
            { name: 'add', inputSchema: { type: 'object' as const } },
            { name: 'slow', inputSchema: { type: 'object' as const } },
          ],
        }));
        mcp.setRequestHandler(CallToolRequestSchema, async (request, extra) => {
          const args = (request.params.arguments ?? {}) as { a?: number; b?: number };
          if (request.params.name === 'add') {
            return {
              content: [{ type: 'text' as const, text: String((args.a ?? 0) + (args.b ?? 0)) }],
            };
          }
          const token = request.params._meta?.progressToken;
          for (let i = 1; i <= 3; i++) {
            if (token !== undefined) {
              await extra.sendNotification({
                method: 'notifications/progress',
                params: { progressToken: token, progress: i, total: 3 },
              });
            }
          }
          return { content: [{ type: 'text' as const, text: 'slow done' }] };
        });
        await mcp.connect(transport);
        cleanups.push(() => mcp.close());
      }
      await transport.handleRequest(req, res);
    });
    return listen(http);
  }

  it('initializes, lists and calls tools, and receives progress', async () => {
    const url = await sdkServer();
    const progress: unknown[] = [];
    const transport = createStreamableHttpTransport({ url });
    const client = createClient(transport, {
      onNotification: (n) => {
        if (n.method === 'notifications/progress') progress.push(n.params);
      },
    });
    cleanups.push(() => client.close());
    const init = (await client.request('initialize', {
      protocolVersion: '2025-06-18',
      capabilities: {},
      clientInfo: { name: 'kit', version: '0.0.0' },
    })) as { serverInfo: { name: string } };
    expect(init.serverInfo.name).toBe('sdk-server');
    expect(transport.sessionId).toBeDefined();
    await client.notify('notifications/initialized');
    const list = (await client.request('tools/list', {})) as { tools: { name: string }[] };
    expect(list.tools.map((t) => t.name)).toEqual(['add', 'slow']);
    expect(await client.request('tools/call', { name: 'add', arguments: { a: 1, b: 2 } })).toEqual({
      content: [{ type: 'text', text: '3' }],
    });
    expect(
      await client.request('tools/call', {
        name: 'slow',
        arguments: {},
        _meta: { progressToken: 'p' },
      }),
    ).toEqual({ content: [{ type: 'text', text: 'slow done' }] });
    expect(progress).toEqual([
      { progressToken: 'p', progress: 1, total: 3 },
      { progressToken: 'p', progress: 2, total: 3 },
      { progressToken: 'p', progress: 3, total: 3 },
    ]);
  });
});
