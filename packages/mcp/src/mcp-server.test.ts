import { type Client, createClient } from '@jsonrpc-kit/client';
import {
  createMemoryTransportPair,
  InvalidParamsError,
  JsonRpcError,
  type JsonRpcNotification,
  mcpProfile,
} from '@jsonrpc-kit/core';
import * as v from 'valibot';
import { afterEach, describe, expect, it } from 'vitest';
import { createMcpServer, type McpServer, type McpServerOptions } from './index.js';

const open: Array<() => Promise<unknown>> = [];
afterEach(async () => {
  await Promise.all(open.splice(0).map((close) => close()));
});

interface Pair {
  readonly mcp: McpServer;
  readonly client: Client;
  readonly notes: JsonRpcNotification[];
  initialize(version?: string, capabilities?: object): Promise<Record<string, unknown>>;
}

function pair(
  setup: (mcp: McpServer) => void,
  options: Partial<McpServerOptions> = {},
  onRequest?: (method: string, params: unknown) => unknown,
): Pair {
  const mcp = createMcpServer({ name: 'test', version: '1.2.3', ...options });
  setup(mcp);
  const [clientSide, serverSide] = createMemoryTransportPair();
  mcp.connect(serverSide);
  const notes: JsonRpcNotification[] = [];
  const client = createClient(clientSide, {
    profile: mcpProfile,
    onNotification: (n) => {
      notes.push(n);
    },
    onRequest: (r) => onRequest?.(r.method, r.params),
  });
  open.push(
    () => client.close(),
    () => mcp.close(),
  );
  return {
    mcp,
    client,
    notes,
    async initialize(version = '2025-11-25', capabilities = {}) {
      const result = await client.request<Record<string, unknown>>('initialize', {
        protocolVersion: version,
        capabilities,
        clientInfo: { name: 'test-client', version: '1' },
      });
      await client.notify('notifications/initialized');
      return result;
    },
  };
}

const until = async (check: () => boolean): Promise<void> => {
  for (let i = 0; i < 200 && !check(); i++) await new Promise((r) => setTimeout(r, 5));
  expect(check()).toBe(true);
};

describe('initialize', () => {
  it('answers a version it speaks, else its newest, with capabilities from what is registered', async () => {
    const p = pair(
      (mcp) => {
        mcp.tool('t', {}, () => 'x');
        mcp.prompt('p', { args: [{ name: 'a' }], complete: { a: () => [] } }, () => 'x');
      },
      { instructions: 'Use t.', title: 'Test' },
    );
    expect(await p.initialize('2025-06-18')).toEqual({
      protocolVersion: '2025-06-18',
      capabilities: {
        logging: {},
        completions: {},
        prompts: { listChanged: true },
        tools: { listChanged: true },
      },
      serverInfo: { name: 'test', title: 'Test', version: '1.2.3' },
      instructions: 'Use t.',
    });
    const again = await p.client.request<{ protocolVersion: string; capabilities: object }>(
      'initialize',
      { protocolVersion: '1999-01-01', capabilities: {}, clientInfo: { name: 'c', version: '1' } },
    );
    expect(again.protocolVersion).toBe('2025-11-25');
    expect(await p.client.request('ping')).toEqual({});
  });

  it('declares resources only when some are registered', async () => {
    const p = pair((mcp) => mcp.resource('r', 'test://r', {}, () => 'r'));
    const { capabilities } = (await p.initialize()) as { capabilities: Record<string, unknown> };
    expect(capabilities).toEqual({
      logging: {},
      resources: { subscribe: true, listChanged: true },
    });
  });
});

describe('tools', () => {
  const setup = (mcp: McpServer) => {
    mcp.tool(
      'add',
      {
        title: 'Add',
        description: 'Adds',
        input: v.object({ a: v.pipe(v.number(), v.description('first')), b: v.number() }),
        annotations: { readOnlyHint: true },
      },
      ({ a, b }) => String(a + b),
    );
    mcp.tool(
      'stats',
      { input: v.object({ n: v.number() }), output: v.object({ double: v.number() }) },
      ({ n }) =>
        n < 0
          ? { structuredContent: { double: 'no' as unknown as number } }
          : { structuredContent: { double: n * 2 } },
    );
    mcp.tool(
      'raw',
      { input: { type: 'object', properties: { x: { type: 'string' } }, $defs: {} } },
      (args) => JSON.stringify(args),
    );
    mcp.tool('boom', {}, () => {
      throw new Error('it broke');
    });
    mcp.tool('protocol', {}, () => {
      throw new JsonRpcError(-32042, 'deliberate');
    });
  };

  it('lists JSON Schema from valibot, JSON Schema as given, annotations and output schemas', async () => {
    const p = pair(setup);
    await p.initialize();
    const { tools } = await p.client.request<{ tools: Record<string, unknown>[] }>('tools/list');
    expect(tools.map((t) => t.name)).toEqual(['add', 'stats', 'raw', 'boom', 'protocol']);
    expect(tools[0]).toEqual({
      name: 'add',
      title: 'Add',
      description: 'Adds',
      inputSchema: {
        type: 'object',
        properties: { a: { type: 'number', description: 'first' }, b: { type: 'number' } },
        required: ['a', 'b'],
      },
      annotations: { readOnlyHint: true },
    });
    expect(tools[1]?.outputSchema).toMatchObject({ type: 'object', required: ['double'] });
    expect(tools[2]?.inputSchema).toEqual({
      type: 'object',
      properties: { x: { type: 'string' } },
      $defs: {},
    });
    expect(tools[3]?.inputSchema).toEqual({ type: 'object', properties: {} });
  });

  it('calls with validated arguments; argument and tool failures are isError results', async () => {
    const p = pair(setup);
    await p.initialize();
    const call = (name: string, args?: object) =>
      p.client.request<Record<string, unknown>>('tools/call', { name, arguments: args });
    expect(await call('add', { a: 1, b: 2 })).toEqual({ content: [{ type: 'text', text: '3' }] });
    const invalid = await call('add', { a: 1, b: 'two' });
    expect(invalid.isError).toBe(true);
    expect(JSON.stringify(invalid.content)).toContain('Invalid arguments for tool add: b:');
    expect(await call('boom')).toEqual({
      content: [{ type: 'text', text: 'it broke' }],
      isError: true,
    });
    expect(await call('stats', { n: 2 })).toEqual({
      content: [{ type: 'text', text: '{"double":4}' }],
      structuredContent: { double: 4 },
    });
    const bad = await call('stats', { n: -1 });
    expect(bad.isError).toBe(true);
    expect(JSON.stringify(bad.content)).toContain('invalid structured content');
    expect(await call('raw', { x: 'y', extra: 1 })).toEqual({
      content: [{ type: 'text', text: '{"x":"y","extra":1}' }],
    });
    await expect(call('nope')).rejects.toMatchObject({
      code: -32602,
      message: 'Unknown tool: nope',
    });
    await expect(call('protocol')).rejects.toMatchObject({ code: -32042 });
    await expect(
      p.client.request('tools/call', { name: 'add', arguments: [1, 2] }),
    ).rejects.toBeInstanceOf(InvalidParamsError);
  });

  it('tells initialized clients when tools come and go', async () => {
    const p = pair(setup);
    await p.initialize();
    const remove = p.mcp.tool('late', {}, () => 'late');
    await until(() => p.notes.length === 1);
    remove();
    remove();
    await until(() => p.notes.length === 2);
    expect(p.notes.map((n) => n.method)).toEqual([
      'notifications/tools/list_changed',
      'notifications/tools/list_changed',
    ]);
    expect(() => p.mcp.tool('add', {}, () => '')).toThrow(TypeError);
    expect(() => p.mcp.tool('has space', {}, () => '')).toThrow(TypeError);
  });

  it('pages lists with cursors and refuses a cursor it did not make', async () => {
    const p = pair(setup, { pageSize: 2 });
    await p.initialize();
    const names: string[] = [];
    let cursor: string | undefined;
    let pages = 0;
    do {
      const page: { tools: { name: string }[]; nextCursor?: string } = await p.client.request(
        'tools/list',
        cursor === undefined ? {} : { cursor },
      );
      names.push(...page.tools.map((t) => t.name));
      cursor = page.nextCursor;
      pages++;
    } while (cursor !== undefined && pages < 10);
    expect(pages).toBe(3);
    expect(names).toEqual(['add', 'stats', 'raw', 'boom', 'protocol']);
    await expect(p.client.request('tools/list', { cursor: 'nonsense' })).rejects.toMatchObject({
      code: -32602,
    });
  });
});

describe('the tool context', () => {
  it('reports progress, logs at the client level, and asks the client', async () => {
    const asked: string[] = [];
    const p = pair(
      (mcp) => {
        mcp.tool('work', {}, async (_args, ctx) => {
          await ctx.progress(1, 2, 'half');
          await ctx.log('debug', 'hidden');
          await ctx.log('error', { failed: 'nothing' }, 'worker');
          const sampled = await ctx.sample({
            messages: [{ role: 'user', content: { type: 'text', text: 'hi' } }],
            maxTokens: 5,
          });
          const elicited = await ctx.elicit({ message: 'name?' });
          const { roots } = await ctx.listRoots();
          return `${sampled.model} ${elicited.action} ${roots.length} ${ctx.client.info?.name}`;
        });
      },
      {},
      (method) => {
        asked.push(method);
        if (method === 'sampling/createMessage') {
          return { role: 'assistant', content: { type: 'text', text: 'yo' }, model: 'm' };
        }
        if (method === 'elicitation/create') return { action: 'accept', content: { n: 'a' } };
        return { roots: [{ uri: 'file:///x' }] };
      },
    );
    await p.initialize('2025-11-25', { sampling: {}, elicitation: {}, roots: {} });
    await p.client.request('logging/setLevel', { level: 'warning' });
    const progress: unknown[] = [];
    const result = await p.client.request(
      'tools/call',
      { name: 'work' },
      { onProgress: (value: unknown) => progress.push(value) },
    );
    expect(result).toEqual({ content: [{ type: 'text', text: 'm accept 1 test-client' }] });
    expect(progress).toEqual([{ progress: 1, total: 2, message: 'half' }]);
    expect(asked).toEqual(['sampling/createMessage', 'elicitation/create', 'roots/list']);
    expect(p.notes.filter((n) => n.method === 'notifications/message')).toEqual([
      {
        jsonrpc: '2.0',
        method: 'notifications/message',
        params: { level: 'error', logger: 'worker', data: { failed: 'nothing' } },
      },
    ]);
    await expect(p.client.request('logging/setLevel', { level: 'loud' })).rejects.toMatchObject({
      code: -32602,
    });
  });

  it('refuses to ask a client for what it did not declare', async () => {
    const p = pair((mcp) =>
      mcp.tool('ask', {}, async (_args, ctx) => {
        await ctx.sample({ messages: [], maxTokens: 1 });
        return 'asked';
      }),
    );
    await p.initialize();
    const result = await p.client.request<{ isError?: boolean; content: unknown }>('tools/call', {
      name: 'ask',
    });
    expect(result.isError).toBe(true);
    expect(JSON.stringify(result.content)).toContain('did not declare the');
  });
});

describe('resources', () => {
  const setup = (mcp: McpServer) => {
    mcp.resource('text', 'test://text', { mimeType: 'text/plain', title: 'Text' }, () => 'hello');
    mcp.resource(
      'bytes',
      'test://bytes',
      { mimeType: 'application/octet-stream' },
      () => new Uint8Array([1, 2, 3]),
    );
    mcp.resourceTemplate(
      'item',
      'test://items/{id}',
      {
        mimeType: 'application/json',
        complete: { id: (value) => ['1', '12', '2'].filter((id) => id.startsWith(value)) },
        list: () => [{ uri: 'test://items/1', name: 'item 1' }],
      },
      (uri, { id }) => ({ contents: [{ uri, text: JSON.stringify({ id }) }] }),
    );
  };

  it('lists, reads text, bytes and templates, and answers -32002 for what it does not have', async () => {
    const p = pair(setup);
    await p.initialize();
    expect(await p.client.request('resources/list')).toEqual({
      resources: [
        { uri: 'test://text', name: 'text', mimeType: 'text/plain', title: 'Text' },
        { uri: 'test://bytes', name: 'bytes', mimeType: 'application/octet-stream' },
        { uri: 'test://items/1', name: 'item 1' },
      ],
    });
    expect(await p.client.request('resources/templates/list')).toEqual({
      resourceTemplates: [
        { uriTemplate: 'test://items/{id}', name: 'item', mimeType: 'application/json' },
      ],
    });
    expect(await p.client.request('resources/read', { uri: 'test://text' })).toEqual({
      contents: [{ uri: 'test://text', mimeType: 'text/plain', text: 'hello' }],
    });
    expect(await p.client.request('resources/read', { uri: 'test://bytes' })).toEqual({
      contents: [{ uri: 'test://bytes', mimeType: 'application/octet-stream', blob: 'AQID' }],
    });
    expect(await p.client.request('resources/read', { uri: 'test://items/a%20b' })).toEqual({
      contents: [{ uri: 'test://items/a%20b', text: '{"id":"a b"}' }],
    });
    await expect(p.client.request('resources/read', { uri: 'test://none' })).rejects.toMatchObject({
      code: -32002,
      data: { uri: 'test://none' },
    });
    expect(
      await p.client.request('completion/complete', {
        ref: { type: 'ref/resource', uri: 'test://items/{id}' },
        argument: { name: 'id', value: '1' },
      }),
    ).toEqual({ completion: { values: ['1', '12'], total: 2, hasMore: false } });
  });

  it('sends updates to subscribed clients only, until they unsubscribe', async () => {
    const p = pair(setup);
    await p.initialize();
    p.mcp.resourceUpdated('test://text');
    await p.client.request('resources/subscribe', { uri: 'test://text' });
    p.mcp.resourceUpdated('test://bytes');
    p.mcp.resourceUpdated('test://text');
    await until(() => p.notes.length === 1);
    expect(p.notes[0]?.params).toEqual({ uri: 'test://text' });
    await p.client.request('resources/unsubscribe', { uri: 'test://text' });
    p.mcp.resourceUpdated('test://text');
    p.mcp.log('info', 'after');
    await until(() => p.notes.length === 2);
    expect(p.notes[1]?.method).toBe('notifications/message');
  });
});

describe('prompts', () => {
  it('lists arguments from the schema, validates them, and completes them', async () => {
    const p = pair((mcp) => {
      mcp.prompt(
        'greet',
        {
          description: 'Greets',
          args: v.object({
            name: v.pipe(v.string(), v.description('who')),
            mood: v.optional(v.string()),
          }),
          complete: { name: (value) => ['Ada', 'Alan'].filter((n) => n.startsWith(value)) },
        },
        ({ name, mood }) => `Hello ${name}${mood ? `, ${mood}` : ''}`,
      );
      mcp.prompt('two', {}, () => [
        { role: 'user', content: { type: 'text', text: 'a' } },
        { role: 'assistant', content: { type: 'text', text: 'b' } },
      ]);
    });
    await p.initialize();
    expect(await p.client.request('prompts/list')).toEqual({
      prompts: [
        {
          name: 'greet',
          description: 'Greets',
          arguments: [
            { name: 'name', description: 'who', required: true },
            { name: 'mood', required: false },
          ],
        },
        { name: 'two' },
      ],
    });
    expect(
      await p.client.request('prompts/get', { name: 'greet', arguments: { name: 'Ada' } }),
    ).toEqual({
      description: 'Greets',
      messages: [{ role: 'user', content: { type: 'text', text: 'Hello Ada' } }],
    });
    expect(await p.client.request('prompts/get', { name: 'two' })).toMatchObject({
      messages: [{ role: 'user' }, { role: 'assistant' }],
    });
    await expect(p.client.request('prompts/get', { name: 'greet' })).rejects.toMatchObject({
      code: -32602,
    });
    await expect(p.client.request('prompts/get', { name: 'nope' })).rejects.toMatchObject({
      code: -32602,
    });
    expect(
      await p.client.request('completion/complete', {
        ref: { type: 'ref/prompt', name: 'greet' },
        argument: { name: 'name', value: 'A' },
      }),
    ).toEqual({ completion: { values: ['Ada', 'Alan'], total: 2, hasMore: false } });
    expect(
      await p.client.request('completion/complete', {
        ref: { type: 'ref/prompt', name: 'greet' },
        argument: { name: 'mood', value: '' },
      }),
    ).toEqual({ completion: { values: [], total: 0, hasMore: false } });
  });
});
