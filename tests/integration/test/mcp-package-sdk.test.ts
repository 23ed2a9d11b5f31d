// The official MCP SDK's `Client` against a server built with @jsonrpc-kit/mcp, over stdio (the
// fixture run as a child process) and over Streamable HTTP (the kit's handler, in process).
import { createServer as createHttpServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createStreamableHttpNodeHandler } from '@jsonrpc-kit/transport-http/node';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import {
  ElicitRequestSchema,
  LoggingMessageNotificationSchema,
  ToolListChangedNotificationSchema,
} from '@modelcontextprotocol/sdk/types.js';
import { afterEach, describe, expect, it } from 'vitest';
import { stdioFixture } from './stdio-fixtures/fixture.js';
// @ts-expect-error: a JavaScript fixture without types
import { buildServer } from './stdio-fixtures/mcp-package-server.mjs';

const cleanups: (() => Promise<unknown> | unknown)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

function sdkClient(): { client: Client; logs: string[]; changes: number[] } {
  const client = new Client(
    { name: 'sdk', version: '1.0.0' },
    { capabilities: { elicitation: {} } },
  );
  const logs: string[] = [];
  const changes: number[] = [];
  client.setRequestHandler(ElicitRequestSchema, () => ({
    action: 'accept',
    content: { name: 'Ada' },
  }));
  client.setNotificationHandler(LoggingMessageNotificationSchema, (n) => {
    logs.push(String(n.params.data));
  });
  client.setNotificationHandler(ToolListChangedNotificationSchema, () => {
    changes.push(Date.now());
  });
  cleanups.push(() => client.close());
  return { client, logs, changes };
}

async function exercise(client: Client, logs: string[]): Promise<void> {
  expect(client.getServerVersion()).toEqual({ name: 'kit-mcp', version: '1.0.0' });
  expect(client.getInstructions()).toBe('Adds.');
  expect(client.getServerCapabilities()).toMatchObject({
    tools: { listChanged: true },
    resources: { subscribe: true },
    prompts: {},
    completions: {},
    logging: {},
  });
  const { tools } = await client.listTools();
  expect(tools.map((t) => t.name)).toEqual(['add', 'countdown', 'ask']);
  expect(tools[0]?.inputSchema).toMatchObject({ type: 'object', required: ['a', 'b'] });
  // The SDK checks structuredContent against the tool's outputSchema.
  expect(await client.callTool({ name: 'add', arguments: { a: 2, b: 40 } })).toEqual({
    content: [{ type: 'text', text: '{"sum":42}' }],
    structuredContent: { sum: 42 },
  });
  const invalid = await client.callTool({ name: 'add', arguments: { a: 'x' } });
  expect(invalid.isError).toBe(true);
  await expect(client.callTool({ name: 'nope', arguments: {} })).rejects.toMatchObject({
    code: -32602,
  });

  const progress: number[] = [];
  expect(
    await client.callTool({ name: 'countdown', arguments: { steps: 3, delayMs: 40 } }, undefined, {
      onprogress: (p) => progress.push(p.progress),
    }),
  ).toEqual({ content: [{ type: 'text', text: 'counted 3' }] });
  // The SDK's client handles notifications a turn late: a report that arrives in one read with
  // the answer loses the race with it (the last one may). The steps are 40 ms apart, so that a
  // loaded machine does not deliver them all in the answer's read.
  expect(progress.slice(0, 2)).toEqual([1, 2]);

  expect(await client.callTool({ name: 'ask', arguments: {} })).toEqual({
    content: [{ type: 'text', text: 'hello Ada' }],
  });
  expect(logs).toEqual(['asked: accept']);

  expect(await client.readResource({ uri: 'test://items/7' })).toEqual({
    contents: [{ uri: 'test://items/7', text: 'item 7' }],
  });
  expect((await client.listResources()).resources).toEqual([
    { uri: 'test://readme', name: 'readme', mimeType: 'text/plain' },
  ]);
  expect((await client.listResourceTemplates()).resourceTemplates).toEqual([
    { uriTemplate: 'test://items/{id}', name: 'item' },
  ]);
  expect(await client.getPrompt({ name: 'greet', arguments: { name: 'Alan' } })).toEqual({
    description: 'Greets',
    messages: [{ role: 'user', content: { type: 'text', text: 'Hello Alan' } }],
  });
  expect(
    await client.complete({
      ref: { type: 'ref/resource', uri: 'test://items/{id}' },
      argument: { name: 'id', value: '1' },
    }),
  ).toEqual({ completion: { values: ['1', '10'], total: 2, hasMore: false } });
  await client.setLoggingLevel('error');
  await client.callTool({ name: 'ask', arguments: {} });
  expect(logs).toEqual(['asked: accept']);
  expect(await client.ping()).toEqual({});
}

async function cancelOne(client: Client): Promise<void> {
  const controller = new AbortController();
  const call = client.callTool(
    { name: 'countdown', arguments: { steps: 1000, delayMs: 20 } },
    undefined,
    { signal: controller.signal, onprogress: () => controller.abort('enough') },
  );
  await expect(call).rejects.toThrow();
}

describe('the MCP SDK Client against a @jsonrpc-kit/mcp server', () => {
  it('over stdio', async () => {
    const { client, logs } = sdkClient();
    await client.connect(
      new StdioClientTransport({
        command: process.execPath,
        args: [stdioFixture('mcp-package-server.mjs')],
        stderr: 'inherit',
      }),
    );
    await exercise(client, logs);
    await cancelOne(client);
    // The server still answers after the cancellation.
    expect(await client.ping()).toEqual({});
  });

  it('over Streamable HTTP, with cancellation and list_changed', async () => {
    const cancelled: string[] = [];
    const mcp = buildServer(cancelled);
    const handler = createStreamableHttpNodeHandler(mcp.server);
    const http = createHttpServer(handler);
    await new Promise<void>((resolve) => http.listen(0, '127.0.0.1', resolve));
    cleanups.push(async () => {
      http.closeAllConnections();
      await new Promise((resolve) => http.close(resolve));
      await handler.close();
      await mcp.close();
    });
    const url = `http://127.0.0.1:${(http.address() as AddressInfo).port}/mcp`;
    const { client, logs, changes } = sdkClient();
    const transport = new StreamableHTTPClientTransport(new URL(url));
    await client.connect(transport);
    await exercise(client, logs);
    await cancelOne(client);
    for (let i = 0; i < 200 && cancelled.length === 0; i++) {
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
    expect(cancelled).toHaveLength(1);
    // A tool added at run time is announced (on the POST stream of the running call or the GET stream).
    const remove = mcp.tool('late', {}, () => 'late');
    cleanups.push(remove);
    await client.callTool({ name: 'add', arguments: { a: 1, b: 1 } });
    for (let i = 0; i < 200 && changes.length === 0; i++) {
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
    expect(changes.length).toBeGreaterThan(0);
    expect((await client.listTools()).tools.map((t) => t.name)).toContain('late');
    await transport.terminateSession();
  });
});
