// The kit's MCP client (`@jsonrpc-kit/mcp/client`) drives the official SDK 2.x server
// (`@modelcontextprotocol/server`): its `McpServer` behind `createMcpHandler`, mounted on a
// node:http server. The handler serves the stateless revision (2026-07-28) and, for 2025-era
// traffic, a stateless fallback; the client is asked for the one and left to its default for the
// other, and each test says which revision was used. Tools (input schemas as given, structured
// content checked against the output schema), a resource, a prompt, and under 2026-07-28 a tool
// that asks the client for input: an `input_required` round the client's handler answers.
import {
  createServer as createHttpServer,
  type IncomingMessage,
  type ServerResponse,
} from 'node:http';
import type { AddressInfo } from 'node:net';
import {
  createMcpClient,
  createMcpFetch,
  type McpClient,
  type McpClientOptions,
} from '@jsonrpc-kit/mcp/client';
import { createStreamableHttpTransport } from '@jsonrpc-kit/transport-http';
import {
  acceptedContent,
  createMcpHandler,
  inputRequired,
  McpServer,
} from '@modelcontextprotocol/server';
import { afterEach, describe, expect, it } from 'vitest';
import { z } from 'zod';

/** Every wait in these tests ends within this many milliseconds. */
const TIMEOUT = 5_000;

const cleanups: (() => Promise<unknown> | unknown)[] = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

/** What each test's server serves: one `McpServer` per request, from this factory. */
function defineServer(): McpServer {
  const server = new McpServer({ name: 'sdk2', version: '2.0.0' });
  server.registerTool(
    'add',
    {
      description: 'adds',
      inputSchema: z.object({ a: z.number(), b: z.number() }),
      outputSchema: z.object({ sum: z.number() }),
    },
    async ({ a, b }) => ({
      content: [{ type: 'text', text: String(a + b) }],
      structuredContent: { sum: a + b },
    }),
  );
  // Its output schema lists `sum` as a number but lets anything through on the server: what the
  // client receives is checked by the client alone.
  const listed = z.object({ sum: z.number() });
  const lax = z.object({ sum: z.unknown() });
  server.registerTool(
    'mislabelled',
    {
      description: 'answers a string where its output schema says number',
      outputSchema: {
        '~standard': { ...lax['~standard'], jsonSchema: listed['~standard'].jsonSchema },
      },
    },
    async () => ({ content: [], structuredContent: { sum: 'forty-two' } }),
  );
  server.registerTool('greet', { description: 'asks for a name, then greets' }, async (ctx) => {
    const answer = acceptedContent(
      ctx.mcpReq.inputResponses,
      'name',
      z.object({ name: z.string() }),
    );
    if (answer === undefined) {
      return inputRequired({
        inputRequests: {
          name: inputRequired.elicit({
            message: 'Your name?',
            requestedSchema: {
              type: 'object',
              properties: { name: { type: 'string' } },
              required: ['name'],
            },
          }),
        },
      });
    }
    return { content: [{ type: 'text', text: `Hello, ${answer.name}!` }] };
  });
  server.registerResource('readme', 'docs://readme', { mimeType: 'text/plain' }, (uri) => ({
    contents: [{ uri: uri.href, mimeType: 'text/plain', text: 'hello' }],
  }));
  server.registerPrompt(
    'review',
    { description: 'reviews', argsSchema: z.object({ who: z.string() }) },
    ({ who }) => ({
      messages: [{ role: 'user', content: { type: 'text', text: `Review ${who}` } }],
    }),
  );
  return server;
}

/** The SDK 2.x handler on a node:http server at 127.0.0.1, port 0; resolves to its URL. */
async function sdk2Server(): Promise<string> {
  const handler = createMcpHandler(() => defineServer(), { keepAliveMs: 0 });
  const http = createHttpServer(async (req: IncomingMessage, res: ServerResponse) => {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const headers = new Headers();
    for (const [name, value] of Object.entries(req.headers)) {
      if (typeof value === 'string') headers.set(name, value);
      else if (Array.isArray(value)) for (const v of value) headers.append(name, v);
    }
    const aborted = new AbortController();
    res.on('close', () => aborted.abort());
    const response = await handler.fetch(
      new Request(`http://${req.headers.host}${req.url}`, {
        method: req.method ?? 'GET',
        headers,
        body: chunks.length > 0 ? Buffer.concat(chunks) : null,
        signal: aborted.signal,
      }),
    );
    res.writeHead(response.status, Object.fromEntries(response.headers));
    if (response.body === null) {
      res.end();
      return;
    }
    const reader = response.body.getReader();
    try {
      for (;;) {
        const { done, value } = await reader.read();
        if (done) break;
        res.write(value);
      }
    } catch {
      // the client went away
    }
    res.end();
  });
  await new Promise<void>((resolve) => http.listen(0, '127.0.0.1', resolve));
  cleanups.push(
    () => handler.close(),
    () =>
      new Promise<void>((resolve) => {
        http.closeAllConnections();
        http.close(() => resolve());
      }),
  );
  return `http://127.0.0.1:${(http.address() as AddressInfo).port}/mcp`;
}

/** A kit client; its `fetch` adds the headers 2026-07-28 asks for (`MCP-Protocol-Version`, …). */
function client(url: string, options: Partial<McpClientOptions> = {}): McpClient {
  const http = createMcpFetch();
  const mcp = createMcpClient(createStreamableHttpTransport({ url, fetch: http }), {
    name: 'kit-host',
    version: '1.0.0',
    http,
    client: { callTimeout: TIMEOUT },
    ...options,
  });
  cleanups.push(() => mcp.close());
  return mcp;
}

/** The schemas the SDK lists for `add`: its zod schemas as JSON Schema (2020-12). */
const ADD_INPUT = {
  $schema: 'https://json-schema.org/draft/2020-12/schema',
  type: 'object',
  properties: { a: { type: 'number' }, b: { type: 'number' } },
  required: ['a', 'b'],
};
const SUM_OUTPUT = {
  $schema: 'https://json-schema.org/draft/2020-12/schema',
  type: 'object',
  properties: { sum: { type: 'number' } },
  required: ['sum'],
  additionalProperties: false,
};

describe("the kit's MCP client against the SDK 2.x McpServer", () => {
  it('speaks 2026-07-28 when asked: discovers, lists and calls tools, reads, gets a prompt', async () => {
    const url = await sdk2Server();
    const mcp = client(url, { protocolVersion: '2026-07-28' });
    const discovered = await mcp.connect();
    expect(mcp.protocolVersion).toBe('2026-07-28');
    expect(discovered.serverInfo).toMatchObject({ name: 'sdk2', version: '2.0.0' });
    expect(discovered.capabilities).toMatchObject({ tools: {}, resources: {}, prompts: {} });

    const tools = await mcp.listAllTools();
    expect(tools.map((t) => t.name).sort()).toEqual(['add', 'greet', 'mislabelled']);
    const add = tools.find((t) => t.name === 'add');
    expect(add).toEqual({
      name: 'add',
      description: 'adds',
      inputSchema: ADD_INPUT,
      outputSchema: SUM_OUTPUT,
    });
    expect(tools.find((t) => t.name === 'greet')?.inputSchema).toEqual({
      type: 'object',
      properties: {},
    });

    const result = await mcp.callTool<{ sum: number }>('add', { a: 2, b: 40 });
    const sum: number = result.structuredContent!.sum;
    expect(sum).toBe(42);
    expect(result.content).toEqual([{ type: 'text', text: '42' }]);
    const failed = await mcp.callTool('add', { a: 'x' });
    expect(failed.isError).toBe(true);
    // The client checks structured content against the output schema it was given.
    await expect(mcp.callTool('mislabelled')).rejects.toThrow(
      /mislabelled: structuredContent breaks the output schema/,
    );

    expect((await mcp.readResource('docs://readme')).contents).toEqual([
      { uri: 'docs://readme', mimeType: 'text/plain', text: 'hello' },
    ]);
    expect(await mcp.listAllPrompts()).toMatchObject([
      { name: 'review', arguments: [{ name: 'who', required: true }] },
    ]);
    expect((await mcp.getPrompt('review', { who: 'Ada' })).messages).toEqual([
      { role: 'user', content: { type: 'text', text: 'Review Ada' } },
    ]);
  });

  it("answers an input_required round under 2026-07-28 with the client's elicitation handler", async () => {
    const url = await sdk2Server();
    const asked: unknown[] = [];
    const mcp = client(url, {
      protocolVersion: '2026-07-28',
      handlers: {
        elicitation: (params) => {
          asked.push(params);
          return { action: 'accept', content: { name: 'Grace' } };
        },
      },
    });
    await mcp.connect();
    expect(mcp.protocolVersion).toBe('2026-07-28');
    const result = await mcp.callTool('greet');
    expect(result.content).toEqual([{ type: 'text', text: 'Hello, Grace!' }]);
    expect(asked).toEqual([
      expect.objectContaining({
        message: 'Your name?',
        requestedSchema: expect.objectContaining({ required: ['name'] }),
      }),
    ]);
  });

  it('left to its default, negotiates 2025-11-25 with the stateless fallback and calls tools', async () => {
    const url = await sdk2Server();
    const mcp = client(url);
    const init = await mcp.connect();
    expect(init.protocolVersion).toBe('2025-11-25');
    expect(mcp.protocolVersion).toBe('2025-11-25');
    expect(init.serverInfo).toMatchObject({ name: 'sdk2', version: '2.0.0' });
    const tools = await mcp.listAllTools();
    expect(tools.find((t) => t.name === 'add')).toMatchObject({
      inputSchema: ADD_INPUT,
      outputSchema: SUM_OUTPUT,
    });
    const result = await mcp.callTool<{ sum: number }>('add', { a: 1, b: 2 });
    expect(result.structuredContent).toEqual({ sum: 3 });
    expect((await mcp.readResource('docs://readme')).contents[0]).toMatchObject({ text: 'hello' });
    expect((await mcp.getPrompt('review', { who: 'Bo' })).messages[0]?.content).toEqual({
      type: 'text',
      text: 'Review Bo',
    });
  });
});
