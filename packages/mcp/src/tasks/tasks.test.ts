import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createClient } from '@jsonrpc-kit/client';
import { createMemoryTransportPair, JsonRpcError, mcpProfile } from '@jsonrpc-kit/core';
import { createStreamableHttpNodeHandler } from '@jsonrpc-kit/transport-http/node';
import * as v from 'valibot';
import { afterEach, describe, expect, it } from 'vitest';
import {
  createMcpNodeHandler,
  createMcpServer,
  createMemoryTaskStore,
  MCP_PUSH_METHODS,
  type McpServer,
  TASKS_EXTENSION_ID,
  type TaskOptions,
  type TaskRecord,
} from '../index.js';

const V = '2026-07-28';
const open: Array<() => Promise<unknown>> = [];
afterEach(async () => {
  await Promise.all(open.splice(0).map((close) => close()));
});

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** What the handlers saw: aborted signals, by label. */
const aborted = new Set<string>();

async function serve(tasks: TaskOptions = {}): Promise<{ url: string; mcp: McpServer }> {
  const mcp = createMcpServer({ name: 'test', version: '1.0.0', tasks });
  mcp.tool(
    'work',
    {
      description: 'Works for `ms`, as a task unless `ms` is 0',
      input: v.object({ ms: v.number(), label: v.string() }),
      taskSupport: 'optional',
    },
    async ({ ms, label }, ctx) => {
      if (ms > 0) await ctx.startTask();
      const taskId = ctx.taskId;
      await ctx.progress(1, 2, `${label} started`);
      await new Promise<void>((resolve, reject) => {
        const timer = setTimeout(resolve, ms);
        ctx.signal.addEventListener('abort', () => {
          clearTimeout(timer);
          aborted.add(label);
          reject(ctx.signal.reason);
        });
      });
      return `${label} done${taskId === undefined ? '' : ` in ${taskId}`}`;
    },
  );
  mcp.tool(
    'ask',
    { description: 'A task that asks two questions at once', taskSupport: 'required' },
    async (_args, ctx) => {
      await ctx.startTask();
      const schema = { type: 'object', properties: { n: { type: 'number' } } };
      const [a, b] = await Promise.all([
        ctx.elicit({ message: 'a?', requestedSchema: schema }, { key: 'a' }),
        ctx.elicit({ message: 'b?', requestedSchema: schema }, { key: 'b' }),
      ]);
      return `sum ${Number(a.content?.n) + Number(b.content?.n)}`;
    },
  );
  mcp.tool('broken', { description: 'Fails', taskSupport: 'optional' }, async (_args, ctx) => {
    await ctx.startTask();
    throw new JsonRpcError(-32603, 'broken inside');
  });
  mcp.tool('plain', { description: 'No task support' }, async (_args, ctx) => {
    await ctx.startTask();
    return `plain ${String(ctx.taskId)}`;
  });
  const legacy = createStreamableHttpNodeHandler(mcp.server, { pushMethods: MCP_PUSH_METHODS });
  const http: Server = createServer(createMcpNodeHandler(mcp, legacy));
  await new Promise<void>((resolve) => http.listen(0, '127.0.0.1', resolve));
  open.push(async () => {
    http.closeAllConnections();
    await new Promise((resolve) => http.close(resolve));
    await legacy.close();
    await mcp.close();
  });
  return { url: `http://127.0.0.1:${(http.address() as AddressInfo).port}/mcp`, mcp };
}

const WITH_TASKS = { elicitation: {}, extensions: { [TASKS_EXTENSION_ID]: {} } };

let nextId = 1;
/** A stateless request; resolves with the JSON-RPC response. */
async function call(
  url: string,
  method: string,
  params: Record<string, unknown>,
  capabilities: Record<string, unknown> = WITH_TASKS,
): Promise<any> {
  const name =
    method === 'tools/call' ? params.name : method.startsWith('tasks/') ? params.taskId : undefined;
  const res = await fetch(url, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      'mcp-protocol-version': V,
      'mcp-method': method,
      ...(typeof name === 'string' ? { 'mcp-name': name } : {}),
    },
    body: JSON.stringify({
      jsonrpc: '2.0',
      id: nextId++,
      method,
      params: {
        ...params,
        _meta: {
          'io.modelcontextprotocol/protocolVersion': V,
          'io.modelcontextprotocol/clientCapabilities': capabilities,
        },
      },
    }),
    signal: AbortSignal.timeout(5_000),
  });
  return res.json();
}

async function until(
  url: string,
  taskId: string,
  done: (task: any) => boolean,
  ms = 3_000,
): Promise<any> {
  const deadline = Date.now() + ms;
  for (;;) {
    const { result } = await call(url, 'tasks/get', { taskId });
    if (done(result)) return result;
    if (Date.now() > deadline) throw new Error(`task ${taskId}: ${JSON.stringify(result)}`);
    await sleep(20);
  }
}

describe('the Tasks extension', () => {
  it('answers with the task at once, then inlines the result on tasks/get', async () => {
    const { url } = await serve({ pollIntervalMs: 50, ttlMs: 60_000 });
    const discover = await call(url, 'server/discover', {});
    expect(discover.result.capabilities.extensions).toEqual({ [TASKS_EXTENSION_ID]: {} });
    const list = await call(url, 'tools/list', {});
    const tools = Object.fromEntries(list.result.tools.map((t: any) => [t.name, t.execution]));
    expect(tools).toEqual({
      work: { taskSupport: 'optional' },
      ask: { taskSupport: 'required' },
      broken: { taskSupport: 'optional' },
      plain: undefined,
    });

    const created = (
      await call(url, 'tools/call', { name: 'work', arguments: { ms: 150, label: 'one' } })
    ).result;
    expect(created).toMatchObject({
      resultType: 'task',
      status: 'working',
      ttlMs: 60_000,
      pollIntervalMs: 50,
    });
    expect(created.taskId).toMatch(/^[0-9a-f]{32}$/);
    expect(Date.parse(created.createdAt)).not.toBeNaN();
    const working = (await call(url, 'tasks/get', { taskId: created.taskId })).result;
    expect(working).toMatchObject({
      taskId: created.taskId,
      status: 'working',
      statusMessage: 'one started',
      resultType: 'complete',
    });
    expect(working.result).toBeUndefined();
    const done = await until(url, created.taskId, (t) => t.status === 'completed');
    expect(done.result).toEqual({
      content: [{ type: 'text', text: `one done in ${created.taskId}` }],
    });

    // A call the handler keeps synchronous (it never starts the task), and a tool without task
    // support whose startTask() does nothing.
    expect(
      (await call(url, 'tools/call', { name: 'work', arguments: { ms: 0, label: 'quick' } }))
        .result,
    ).toMatchObject({ resultType: 'complete', content: [{ type: 'text', text: 'quick done' }] });
    expect((await call(url, 'tools/call', { name: 'plain', arguments: {} })).result).toMatchObject({
      resultType: 'complete',
      content: [{ type: 'text', text: 'plain undefined' }],
    });
  });

  it('fails a task with the JSON-RPC error its handler threw', async () => {
    const { url } = await serve({ pollIntervalMs: 50 });
    const { taskId } = (await call(url, 'tools/call', { name: 'broken', arguments: {} })).result;
    const failed = await until(url, taskId, (t) => t.status !== 'working');
    expect(failed).toMatchObject({
      status: 'failed',
      error: { code: -32603, message: 'broken inside' },
    });
    expect(failed.result).toBeUndefined();
  });

  it('parks a task on its questions until tasks/update answers every one', async () => {
    const { url } = await serve({ pollIntervalMs: 50 });
    const { taskId } = (await call(url, 'tools/call', { name: 'ask', arguments: {} })).result;
    const waiting = await until(
      url,
      taskId,
      (t) => Object.keys(t.inputRequests ?? {}).length === 2,
    );
    expect(waiting.status).toBe('input_required');
    expect(waiting.inputRequests.a).toMatchObject({
      method: 'elicitation/create',
      params: { message: 'a?' },
    });
    const ack = await call(url, 'tasks/update', {
      taskId,
      inputResponses: { a: { action: 'accept', content: { n: 2 } }, stray: {} },
    });
    expect(ack.result).toEqual({
      resultType: 'complete',
      _meta: expect.any(Object),
    });
    const half = (await call(url, 'tasks/get', { taskId })).result;
    expect(half.status).toBe('input_required');
    expect(Object.keys(half.inputRequests)).toEqual(['b']);
    await call(url, 'tasks/update', {
      taskId,
      inputResponses: { b: { action: 'accept', content: { n: 3 } } },
    });
    const done = await until(url, taskId, (t) => t.status === 'completed');
    expect(done.result.content[0].text).toBe('sum 5');
    expect(done.inputRequests).toBeUndefined();
  });

  it('cancels a running task: its signal aborts and it stays cancelled; a finished one is left', async () => {
    const { url } = await serve({ pollIntervalMs: 50 });
    const { taskId } = (
      await call(url, 'tools/call', { name: 'work', arguments: { ms: 10_000, label: 'long' } })
    ).result;
    const ack = await call(url, 'tasks/cancel', { taskId });
    expect(Object.keys(ack.result).sort()).toEqual(['_meta', 'resultType']);
    await sleep(50);
    expect(aborted.has('long')).toBe(true);
    expect((await call(url, 'tasks/get', { taskId })).result.status).toBe('cancelled');

    const short = (
      await call(url, 'tools/call', { name: 'work', arguments: { ms: 10, label: 'short' } })
    ).result;
    await until(url, short.taskId, (t) => t.status === 'completed');
    expect((await call(url, 'tasks/cancel', { taskId: short.taskId })).result.resultType).toBe(
      'complete',
    );
    expect((await call(url, 'tasks/get', { taskId: short.taskId })).result.status).toBe(
      'completed',
    );
  });

  it('closing the server fails the tasks it runs and aborts their handlers', async () => {
    const store = createMemoryTaskStore();
    const { url, mcp } = await serve({ store });
    const { taskId } = (
      await call(url, 'tools/call', { name: 'work', arguments: { ms: 10_000, label: 'closing' } })
    ).result;
    await mcp.close();
    expect(aborted.has('closing')).toBe(true);
    expect(await store.get(taskId)).toMatchObject({
      status: 'failed',
      error: { code: -32603, message: 'The server closed before the task ended' },
    });
  });

  it('refuses what a client without the extension cannot have, and unknown tasks', async () => {
    const { url } = await serve();
    // An optional task tool stays synchronous; a required one is refused with -32021.
    expect(
      (await call(url, 'tools/call', { name: 'work', arguments: { ms: 20, label: 'sync' } }, {}))
        .result,
    ).toMatchObject({ resultType: 'complete', content: [{ type: 'text', text: 'sync done' }] });
    const refused = await call(url, 'tools/call', { name: 'ask', arguments: {} }, {});
    expect(refused.error).toMatchObject({
      code: -32021,
      data: { requiredCapabilities: { extensions: { [TASKS_EXTENSION_ID]: {} } } },
    });
    for (const method of ['tasks/get', 'tasks/update', 'tasks/cancel']) {
      const answer = await call(url, method, { taskId: 'x', inputResponses: {} }, {});
      expect(answer.error.code).toBe(-32021);
    }
    for (const method of ['tasks/get', 'tasks/update', 'tasks/cancel']) {
      const answer = await call(url, method, { taskId: 'nope', inputResponses: {} });
      expect(answer.error.code).toBe(-32602);
    }
    // The methods of the first tasks design are gone.
    expect((await call(url, 'tasks/result', { taskId: 'nope' })).error.code).toBe(-32601);
    expect((await call(url, 'tasks/list', {})).error.code).toBe(-32601);
  });
});

describe('the Tasks extension on a 2025 session', () => {
  it('serves a client that declared it in initialize: tasks, and questions through the task', async () => {
    const mcp = createMcpServer({ name: 'test', version: '1.0.0', tasks: { pollIntervalMs: 20 } });
    mcp.tool(
      'confirm',
      { description: 'Asks, as a task', taskSupport: 'required' },
      async (_a, ctx) => {
        await ctx.startTask();
        const answer = await ctx.elicit(
          { message: 'Sure?', requestedSchema: { type: 'object', properties: {} } },
          { key: 'sure' },
        );
        return `answer: ${answer.action}`;
      },
    );
    const [clientSide, serverSide] = createMemoryTransportPair();
    mcp.connect(serverSide);
    const asked: string[] = [];
    const client = createClient(clientSide, {
      profile: mcpProfile,
      onRequest: (request) => {
        asked.push(request.method);
        return { action: 'decline' };
      },
    });
    open.push(
      () => client.close(),
      () => mcp.close(),
    );
    const init = await client.request<any>('initialize', {
      protocolVersion: '2025-11-25',
      capabilities: { elicitation: {}, extensions: { [TASKS_EXTENSION_ID]: {} } },
      clientInfo: { name: 'c', version: '1' },
    });
    expect(init.capabilities.extensions).toEqual({ [TASKS_EXTENSION_ID]: {} });
    await client.notify('notifications/initialized');
    const created = await client.request<any>('tools/call', { name: 'confirm', arguments: {} });
    // The task's status when the answer left: the handler may have asked already.
    expect(created.resultType).toBe('task');
    expect(['working', 'input_required']).toContain(created.status);
    let task: any;
    for (let i = 0; i < 100; i++) {
      task = await client.request('tasks/get', { taskId: created.taskId });
      if (task.status === 'input_required') break;
      await sleep(10);
    }
    expect(task.inputRequests).toEqual({
      sure: { method: 'elicitation/create', params: expect.objectContaining({ message: 'Sure?' }) },
    });
    // The question waits in the task; it is not a request to the client.
    expect(asked).toEqual([]);
    await client.request('tasks/update', {
      taskId: created.taskId,
      inputResponses: { sure: { action: 'accept', content: {} } },
    });
    for (let i = 0; i < 100 && task.status !== 'completed'; i++) {
      await sleep(10);
      task = await client.request('tasks/get', { taskId: created.taskId });
    }
    expect(task.result).toEqual({ content: [{ type: 'text', text: 'answer: accept' }] });
  });
});

describe('the in-memory task store', () => {
  const record = (taskId: string, status: TaskRecord['status'], ttlMs = 60_000): TaskRecord => {
    const now = new Date().toISOString();
    return { taskId, status, createdAt: now, lastUpdatedAt: now, ttlMs };
  };

  it('drops a task once its ttl passed', async () => {
    const store = createMemoryTaskStore();
    await store.create(record('a', 'working', 40));
    expect((await store.get('a'))?.status).toBe('working');
    await sleep(60);
    expect(await store.get('a')).toBeUndefined();
    expect(await store.update('a', (r) => ({ ...r, status: 'completed' }))).toBeUndefined();
  });

  it('keeps at most maxTasks: drops the oldest finished one, refuses when all run', async () => {
    const store = createMemoryTaskStore({ maxTasks: 2 });
    await store.create(record('a', 'completed'));
    await store.create(record('b', 'working'));
    await store.create(record('c', 'working'));
    expect(await store.get('a')).toBeUndefined();
    expect((await store.get('b'))?.status).toBe('working');
    await expect(store.create(record('d', 'working'))).rejects.toThrow(/full/);
    // An update that returns undefined leaves the task as it is.
    expect(await store.update('b', () => undefined)).toMatchObject({ status: 'working' });
    expect(() => createMemoryTaskStore({ maxTasks: 0 })).toThrow(TypeError);
  });
});
