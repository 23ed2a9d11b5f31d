import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createMemoryTransportPair, JsonRpcError, ProtocolError } from '@jsonrpc-kit/core';
import {
  createStreamableHttpNodeHandler,
  createStreamableHttpTransport,
} from '@jsonrpc-kit/transport-http';
import * as v from 'valibot';
import { afterEach, describe, expect, it } from 'vitest';
import {
  applyElicitationDefaults,
  createMcpClient,
  type McpClient,
  type McpClientOptions,
} from './client-index.js';
import { createMcpServer, MCP_PUSH_METHODS, type McpServer } from './index.js';

const open: Array<() => Promise<unknown>> = [];
afterEach(async () => {
  await Promise.all(open.splice(0).map((close) => close()));
});

function pair(
  setup: (mcp: McpServer) => void,
  options: Partial<McpClientOptions> = {},
  serverOptions: { pageSize?: number } = {},
): { mcp: McpServer; client: McpClient } {
  const mcp = createMcpServer({ name: 'kit', version: '1.0.0', ...serverOptions });
  setup(mcp);
  const [clientSide, serverSide] = createMemoryTransportPair();
  mcp.connect(serverSide);
  const client = createMcpClient(clientSide, { name: 'host', version: '0.1.0', ...options });
  open.push(
    () => client.close(),
    () => mcp.close(),
  );
  return { mcp, client };
}

describe('createMcpClient against the kit server', () => {
  it('initializes, negotiates the version and lists the server capabilities', async () => {
    const { client } = pair((mcp) => {
      mcp.tool('echo', { input: v.object({ text: v.string() }) }, ({ text }) => text);
    });
    const result = await client.connect();
    expect(result.protocolVersion).toBe('2025-11-25');
    expect(result.serverInfo).toMatchObject({ name: 'kit', version: '1.0.0' });
    expect(client.serverCapabilities?.tools).toEqual({ listChanged: true });
    expect(await client.connect()).toBe(result);
  });

  it('accepts an older version the server chooses, and refuses one it does not speak', async () => {
    const older = pair(() => {}, { protocolVersion: '2025-06-18' });
    expect((await older.client.connect()).protocolVersion).toBe('2025-06-18');
    const refused = pair(() => {}, { protocolVersions: ['2030-01-01'] });
    await expect(refused.client.connect()).rejects.toBeInstanceOf(ProtocolError);
  });

  it('calls tools with structured content, checks the output schema, pages through lists', async () => {
    const { client } = pair(
      (mcp) => {
        mcp.tool(
          'add',
          {
            input: v.object({ a: v.number(), b: v.number() }),
            output: v.object({ sum: v.number() }),
          },
          ({ a, b }) => ({ structuredContent: { sum: a + b } }),
        );
        mcp.tool(
          'liar',
          {
            output: { type: 'object', properties: { sum: { type: 'number' } }, required: ['sum'] },
          },
          () => ({ structuredContent: { sum: 'three' } }) as never,
        );
        for (let i = 0; i < 5; i++) mcp.tool(`t${i}`, {}, () => 'x');
      },
      {},
      { pageSize: 2 },
    );
    await client.connect();
    const first = await client.listTools();
    expect(first.tools).toHaveLength(2);
    expect(first.nextCursor).toBeTypeOf('string');
    const tools = await client.listAllTools();
    expect(tools.map((t) => t.name)).toEqual(['add', 'liar', 't0', 't1', 't2', 't3', 't4']);
    const result = await client.callTool<{ sum: number }>('add', { a: 2, b: 3 });
    expect(result.structuredContent?.sum).toBe(5);
    expect(result.content).toEqual([{ type: 'text', text: '{"sum":5}' }]);
    // The kit server does not check an output schema given as JSON Schema: the client does.
    await expect(client.callTool('liar')).rejects.toThrow(/breaks the output schema/);
    await expect(client.callTool('nope')).rejects.toBeInstanceOf(JsonRpcError);
  });

  it('reads resources and templates, subscribes, gets prompts, completes, logs, pings', async () => {
    const updated: string[] = [];
    const logs: unknown[] = [];
    const { mcp, client } = pair(
      (server) => {
        server.resource('readme', 'docs://readme', { mimeType: 'text/plain' }, () => 'hello');
        server.resourceTemplate(
          'doc',
          'docs://{name}',
          { complete: { name: (typed) => ['alpha', 'beta'].filter((n) => n.startsWith(typed)) } },
          (_uri, { name }) => `doc ${name}`,
        );
        server.prompt('greet', { args: v.object({ who: v.string() }) }, ({ who }, ctx) => {
          void ctx.log('info', `greeting ${who}`);
          return `Hello ${who}`;
        });
      },
      { onResourceUpdated: (uri) => updated.push(uri), onLog: (m) => logs.push(m) },
    );
    await client.connect();
    expect(await client.listAllResources()).toMatchObject([{ uri: 'docs://readme' }]);
    expect(await client.listAllResourceTemplates()).toMatchObject([
      { uriTemplate: 'docs://{name}' },
    ]);
    expect((await client.readResource('docs://readme')).contents[0]).toMatchObject({
      text: 'hello',
    });
    expect((await client.readResource('docs://x')).contents[0]).toMatchObject({ text: 'doc x' });
    const missing = await client.readResource('other://x').catch((e: unknown) => e);
    expect(missing).toMatchObject({ code: -32002 });
    await client.subscribeResource('docs://readme');
    mcp.resourceUpdated('docs://readme');
    await client.setLoggingLevel('debug');
    const prompt = await client.getPrompt('greet', { who: 'Ada' });
    expect(prompt.messages[0]?.content).toEqual({ type: 'text', text: 'Hello Ada' });
    const completion = await client.complete(
      { type: 'ref/resource', uri: 'docs://{name}' },
      { name: 'name', value: 'b' },
    );
    expect(completion.completion.values).toEqual(['beta']);
    await client.ping();
    await expect.poll(() => updated).toEqual(['docs://readme']);
    await expect.poll(() => logs).toMatchObject([{ level: 'info', data: 'greeting Ada' }]);
  });

  it('follows list_changed with the new list', async () => {
    const seen: string[][] = [];
    const { mcp, client } = pair((server) => server.tool('a', {}, () => 'a'), {
      onListChanged: { tools: (tools) => seen.push(tools.map((t) => t.name)) },
    });
    await client.connect();
    mcp.tool('b', {}, () => 'b');
    await expect.poll(() => seen).toEqual([['a', 'b']]);
  });

  it('answers sampling, elicitation (with schema defaults) and roots through its handlers', async () => {
    const { client } = pair(
      (mcp) =>
        mcp.tool('ask', {}, async (_args, ctx) => {
          const sampled = await ctx.sample({
            messages: [{ role: 'user', content: { type: 'text', text: 'hi' } }],
            maxTokens: 5,
          });
          const elicited = await ctx.elicit({
            message: 'who?',
            requestedSchema: {
              type: 'object',
              properties: {
                name: { type: 'string', default: 'Ada' },
                age: { type: 'integer', default: 36 },
                city: { type: 'string' },
              },
            },
          });
          const { roots } = await ctx.listRoots();
          return JSON.stringify({ model: sampled.model, elicited, roots });
        }),
      {
        handlers: {
          sampling: () => ({
            role: 'assistant',
            content: { type: 'text', text: 'yo' },
            model: 'm',
          }),
          elicitation: () => ({ action: 'accept', content: { age: 40 } }),
          roots: () => [{ uri: 'file:///work', name: 'work' }],
        },
      },
    );
    expect(client.capabilities).toEqual({
      sampling: {},
      elicitation: { form: {} },
      roots: { listChanged: true },
    });
    await client.connect();
    const result = await client.callTool('ask');
    const text = (result.content[0] as { text: string }).text;
    expect(JSON.parse(text)).toEqual({
      model: 'm',
      elicited: { action: 'accept', content: { age: 40, name: 'Ada' } },
      roots: [{ uri: 'file:///work', name: 'work' }],
    });
  });

  it('reports progress and cancels a call', async () => {
    let aborted = false;
    const { client } = pair((mcp) =>
      mcp.tool('slow', {}, async (_args, ctx) => {
        await ctx.progress(1, 10, 'started');
        await new Promise<void>((resolve) => {
          if (ctx.signal.aborted) {
            aborted = true;
            resolve();
          }
          ctx.signal.addEventListener('abort', () => {
            aborted = true;
            resolve();
          });
        });
        return 'never';
      }),
    );
    await client.connect();
    const controller = new AbortController();
    const progress: unknown[] = [];
    const call = client.callTool(
      'slow',
      {},
      {
        signal: controller.signal,
        onProgress: (p) => {
          progress.push(p);
          controller.abort();
        },
      },
    );
    await expect(call).rejects.toMatchObject({ name: 'AbortError' });
    expect(progress).toEqual([{ progress: 1, total: 10, message: 'started' }]);
    await expect.poll(() => aborted).toBe(true);
  });

  it('works over Streamable HTTP', async () => {
    const mcp = createMcpServer({ name: 'http', version: '1.0.0' });
    mcp.tool('add', { input: v.object({ a: v.number(), b: v.number() }) }, ({ a, b }) =>
      String(a + b),
    );
    const handler = createStreamableHttpNodeHandler(mcp.server, { pushMethods: MCP_PUSH_METHODS });
    const http = createServer(handler).listen(0, '127.0.0.1');
    await new Promise((resolve) => http.once('listening', resolve));
    const url = `http://127.0.0.1:${(http.address() as AddressInfo).port}/mcp`;
    const client = createMcpClient(createStreamableHttpTransport({ url }), {
      name: 'host',
      version: '1',
    });
    open.push(
      () => client.close(),
      () => new Promise((resolve) => http.close(resolve)),
      () => handler.close(),
      () => mcp.close(),
    );
    await client.connect();
    expect(await client.callTool('add', { a: 1, b: 2 })).toEqual({
      content: [{ type: 'text', text: '3' }],
    });
  });
});

describe('applyElicitationDefaults', () => {
  it('fills the missing fields only', () => {
    const schema = {
      type: 'object',
      properties: { a: { default: 1 }, b: { default: 'x' }, c: { type: 'string' } },
    };
    expect(applyElicitationDefaults(schema, { b: 'given' })).toEqual({ a: 1, b: 'given' });
    expect(applyElicitationDefaults(undefined, { b: 1 })).toEqual({ b: 1 });
  });
});
