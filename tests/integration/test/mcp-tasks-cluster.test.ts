// MCP tasks across processes: two MCP server processes keep their tasks in one real Redis
// (`createRedisTaskStore`); a task started on one is polled, answered and cancelled on the other,
// over the stateless revision (2026-07-28) with the Tasks extension.
import { type ChildProcess, spawn } from 'node:child_process';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { findRedisServer, REDIS_SERVER_INSTALL_HINT } from '@jsonrpc-kit/redis/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { useRedisServer } from '../../../packages/redis/test/redis-server.js';

const skip = findRedisServer() === undefined;
if (skip) console.warn(`${REDIS_SERVER_INSTALL_HINT}: the MCP tasks cluster tests skip`);

const nodeScript = fileURLToPath(new URL('./redis-fixtures/mcp-tasks-node.mjs', import.meta.url));
const V = '2026-07-28';
const CAPABILITIES = {
  elicitation: {},
  extensions: { 'io.modelcontextprotocol/tasks': {} },
};

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

let nextId = 1;
async function call(url: string, method: string, params: Record<string, unknown>): Promise<any> {
  const name = method === 'tools/call' ? params.name : params.taskId;
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
          'io.modelcontextprotocol/clientCapabilities': CAPABILITIES,
        },
      },
    }),
    signal: AbortSignal.timeout(5_000),
  });
  const body = await res.json();
  if (body.error !== undefined) throw new Error(`${method}: ${JSON.stringify(body.error)}`);
  return body.result;
}

async function until(url: string, taskId: string, done: (task: any) => boolean): Promise<any> {
  const deadline = Date.now() + 5_000;
  for (;;) {
    const task = await call(url, 'tasks/get', { taskId });
    if (done(task)) return task;
    if (Date.now() > deadline) throw new Error(`task ${taskId} is still ${JSON.stringify(task)}`);
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}

describe.skipIf(skip)('MCP tasks across two processes on Redis', () => {
  const redis = useRedisServer();
  const children: ChildProcess[] = [];
  let a: string;
  let b: string;

  beforeAll(async () => {
    [a, b] = (await Promise.all(['a', 'b'].map((n) => startNode(redis.url, n, children)))) as [
      string,
      string,
    ];
  });
  afterAll(async () => {
    for (const child of children) {
      if (child.exitCode !== null) continue;
      const exited = new Promise((resolve) => child.once('exit', resolve));
      child.kill('SIGTERM');
      const timer = setTimeout(() => child.kill('SIGKILL'), 2_000);
      await exited;
      clearTimeout(timer);
    }
  });

  it('a task started on A is polled on B until its result, computed on A, is there', async () => {
    const created = await call(a, 'tools/call', { name: 'job', arguments: { ms: 300 } });
    expect(created).toMatchObject({ resultType: 'task', status: 'working', pollIntervalMs: 50 });
    expect((await call(b, 'tasks/get', { taskId: created.taskId })).status).toBe('working');
    const done = await until(b, created.taskId, (task) => task.status === 'completed');
    expect(done.result.content).toEqual([{ type: 'text', text: 'job done on a' }]);
  });

  it("B answers the question of A's task: A's handler goes on with the answer", async () => {
    const { taskId } = await call(a, 'tools/call', { name: 'confirm', arguments: {} });
    const waiting = await until(b, taskId, (task) => task.status === 'input_required');
    const [key] = Object.keys(waiting.inputRequests);
    expect(waiting.inputRequests[key!]).toMatchObject({ method: 'elicitation/create' });
    await call(b, 'tasks/update', {
      taskId,
      inputResponses: { [key!]: { action: 'accept', content: { by: 'b' } } },
    });
    const done = await until(a, taskId, (task) => task.status === 'completed');
    expect(done.result.content[0].text).toBe('confirmed by b on a');
  });

  it("B cancels A's task: its handler's signal aborts on A, and it stays cancelled", async () => {
    const { taskId } = await call(a, 'tools/call', { name: 'job', arguments: { ms: 30_000 } });
    await call(b, 'tasks/cancel', { taskId });
    const deadline = Date.now() + 3_000;
    let aborted: string[] = [];
    while (!aborted.includes(taskId) && Date.now() < deadline) {
      await new Promise((resolve) => setTimeout(resolve, 25));
      const result = await call(a, 'tools/call', { name: 'aborted', arguments: {} });
      aborted = JSON.parse(result.content[0].text);
    }
    expect(aborted).toContain(taskId);
    expect((await call(a, 'tasks/get', { taskId })).status).toBe('cancelled');
  });
});
