// The kit's MCP client (`@jsonrpc-kit/mcp/client`) drives the official SDK's `McpServer` (1.x) over
// Streamable HTTP: the handshake, tools with structured content, resources, prompts, completions,
// logging, progress, list_changed, and the server's sampling, elicitation and roots requests.
import { randomUUID } from 'node:crypto';
import {
  createServer as createHttpServer,
  type IncomingMessage,
  type ServerResponse,
} from 'node:http';
import type { AddressInfo } from 'node:net';
import { createMcpClient, type McpClient, type McpClientOptions } from '@jsonrpc-kit/mcp/client';
import { createStreamableHttpTransport } from '@jsonrpc-kit/transport-http';
import { McpServer, ResourceTemplate } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { afterEach, describe, expect, it } from 'vitest';
import { z } from 'zod';

const cleanups: (() => Promise<unknown> | unknown)[] = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

/** An SDK `McpServer` per session, on a node:http server; `setup` registers what it serves. */
async function sdkServer(setup: (server: McpServer) => void): Promise<string> {
  const sessions = new Map<string, StreamableHTTPServerTransport>();
  const servers: McpServer[] = [];
  const http = createHttpServer(async (req: IncomingMessage, res: ServerResponse) => {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const body = chunks.length > 0 ? JSON.parse(Buffer.concat(chunks).toString('utf8')) : undefined;
    const id = req.headers['mcp-session-id'];
    let transport = typeof id === 'string' ? sessions.get(id) : undefined;
    if (transport === undefined) {
      transport = new StreamableHTTPServerTransport({
        sessionIdGenerator: () => randomUUID(),
        onsessioninitialized: (sid) => {
          sessions.set(sid, transport!);
        },
      });
      const server = new McpServer(
        { name: 'sdk', version: '1.0.0' },
        { capabilities: { logging: {} } },
      );
      setup(server);
      servers.push(server);
      await server.connect(transport);
    }
    await transport.handleRequest(req, res, body);
  });
  await new Promise<void>((resolve) => http.listen(0, '127.0.0.1', resolve));
  cleanups.push(
    async () => {
      for (const server of servers) await server.close();
    },
    () =>
      new Promise<void>((resolve) => {
        http.closeAllConnections();
        http.close(() => resolve());
      }),
  );
  return `http://127.0.0.1:${(http.address() as AddressInfo).port}/mcp`;
}

function client(url: string, options: Partial<McpClientOptions> = {}): McpClient {
  const mcp = createMcpClient(createStreamableHttpTransport({ url, stream: true }), {
    name: 'kit-host',
    version: '1.0.0',
    ...options,
  });
  cleanups.push(() => mcp.close());
  return mcp;
}

describe("the kit's MCP client against the SDK's McpServer", () => {
  it('initializes and calls tools with structured content and progress', async () => {
    const url = await sdkServer((server) => {
      server.registerTool(
        'add',
        {
          description: 'adds',
          inputSchema: { a: z.number(), b: z.number() },
          outputSchema: { sum: z.number() },
        },
        async ({ a, b }, extra) => {
          const token = extra._meta?.progressToken;
          if (token !== undefined) {
            await extra.sendNotification({
              method: 'notifications/progress',
              params: { progressToken: token, progress: 1, total: 1 },
            });
          }
          return {
            content: [{ type: 'text', text: String(a + b) }],
            structuredContent: { sum: a + b },
          };
        },
      );
    });
    const mcp = client(url);
    const init = await mcp.connect();
    expect(init.protocolVersion).toBe('2025-11-25');
    expect(init.serverInfo.name).toBe('sdk');
    const tools = await mcp.listAllTools();
    expect(tools[0]).toMatchObject({ name: 'add', outputSchema: { type: 'object' } });
    const progress: unknown[] = [];
    const result = await mcp.callTool<{ sum: number }>(
      'add',
      { a: 2, b: 40 },
      { onProgress: (p) => progress.push(p) },
    );
    expect(result.structuredContent).toEqual({ sum: 42 });
    expect(progress).toEqual([{ progress: 1, total: 1 }]);
    const failed = await mcp.callTool('add', { a: 'x' });
    expect(failed.isError).toBe(true);
  });

  it('reads resources and templates, gets prompts, completes, sets the log level, pings', async () => {
    const logs: unknown[] = [];
    const url = await sdkServer((server) => {
      server.registerResource('readme', 'docs://readme', { mimeType: 'text/plain' }, (uri) => ({
        contents: [{ uri: uri.href, text: 'hello' }],
      }));
      server.registerResource(
        'doc',
        new ResourceTemplate('docs://{name}', {
          list: undefined,
          complete: { name: (value) => ['alpha', 'beta'].filter((n) => n.startsWith(value)) },
        }),
        {},
        (uri, { name }) => ({ contents: [{ uri: uri.href, text: `doc ${String(name)}` }] }),
      );
      server.registerPrompt('greet', { argsSchema: { who: z.string() } }, ({ who }) => ({
        messages: [{ role: 'user', content: { type: 'text', text: `Hello ${who}` } }],
      }));
      server.registerTool('log', {}, async (extra) => {
        await server.sendLoggingMessage({ level: 'info', data: 'logged' }, extra.sessionId);
        return { content: [] };
      });
    });
    const mcp = client(url, { onLog: (m) => logs.push(m) });
    await mcp.connect();
    expect(await mcp.listAllResources()).toMatchObject([{ uri: 'docs://readme' }]);
    expect(await mcp.listAllResourceTemplates()).toMatchObject([{ uriTemplate: 'docs://{name}' }]);
    expect((await mcp.readResource('docs://readme')).contents).toEqual([
      { uri: 'docs://readme', text: 'hello' },
    ]);
    expect((await mcp.readResource('docs://beta')).contents[0]).toMatchObject({ text: 'doc beta' });
    expect(await mcp.listAllPrompts()).toMatchObject([{ name: 'greet' }]);
    expect((await mcp.getPrompt('greet', { who: 'Ada' })).messages[0]?.content).toEqual({
      type: 'text',
      text: 'Hello Ada',
    });
    const completion = await mcp.complete(
      { type: 'ref/resource', uri: 'docs://{name}' },
      { name: 'name', value: 'a' },
    );
    expect(completion.completion.values).toEqual(['alpha']);
    await mcp.setLoggingLevel('debug');
    await mcp.callTool('log');
    await expect.poll(() => logs).toEqual([{ level: 'info', data: 'logged' }]);
    await mcp.ping();
  });

  it("answers the server's sampling, elicitation and roots requests", async () => {
    const url = await sdkServer((server) => {
      server.registerTool('ask', {}, async () => {
        const sampled = await server.server.createMessage({
          messages: [{ role: 'user', content: { type: 'text', text: 'hi' } }],
          maxTokens: 10,
        });
        const elicited = await server.server.elicitInput({
          message: 'Your name?',
          requestedSchema: {
            type: 'object',
            properties: { name: { type: 'string', default: 'Ada' }, age: { type: 'integer' } },
          },
        });
        const roots = await server.server.listRoots();
        return {
          content: [
            { type: 'text', text: JSON.stringify({ model: sampled.model, elicited, roots }) },
          ],
        };
      });
    });
    const mcp = client(url, {
      handlers: {
        sampling: () => ({ role: 'assistant', content: { type: 'text', text: 'yo' }, model: 'm1' }),
        elicitation: () => ({ action: 'accept', content: { age: 7 } }),
        roots: () => [{ uri: 'file:///src', name: 'src' }],
      },
    });
    await mcp.connect();
    const result = await mcp.callTool('ask');
    expect(JSON.parse((result.content[0] as { text: string }).text)).toEqual({
      model: 'm1',
      elicited: { action: 'accept', content: { age: 7, name: 'Ada' } },
      roots: { roots: [{ uri: 'file:///src', name: 'src' }] },
    });
  });

  it('follows tools/list_changed', async () => {
    let sdk: McpServer | undefined;
    const url = await sdkServer((server) => {
      sdk = server;
      server.registerTool('first', {}, () => ({ content: [] }));
    });
    const seen: string[][] = [];
    const mcp = client(url, {
      onListChanged: { tools: (tools) => seen.push(tools.map((t) => t.name)) },
    });
    await mcp.connect();
    // The GET stream carries notifications sent outside a request.
    await new Promise((resolve) => setTimeout(resolve, 100));
    sdk!.registerTool('second', {}, () => ({ content: [] }));
    await expect.poll(() => seen, { timeout: 5_000 }).toEqual([['first', 'second']]);
  });
});
