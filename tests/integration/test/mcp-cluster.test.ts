// A stateful MCP server on two processes sharing one Redis, behind a plain round-robin balancer
// (no affinity): the official SDK client's requests alternate between the processes, and a tool
// that asks the user (`ctx.elicit()`) runs on one process while the client's answer reaches the
// other.
import { type ChildProcess, spawn } from 'node:child_process';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { findRedisServer, REDIS_SERVER_INSTALL_HINT } from '@jsonrpc-kit/redis/testing';
import { Client as McpClient } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { ElicitRequestSchema } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { useRedisServer } from '../../../packages/redis/test/redis-server.js';
import { roundRobin } from './round-robin.js';

const skip = findRedisServer() === undefined;
if (skip) console.warn(`${REDIS_SERVER_INSTALL_HINT}: the MCP cluster test skips`);

const nodeScript = fileURLToPath(new URL('./redis-fixtures/mcp-node.mjs', import.meta.url));

/** Starts one server process; resolves its URL. Its later stdout lines go to `lines`. */
function startNode(
  redisUrl: string,
  name: string,
  children: ChildProcess[],
  lines: string[],
): Promise<string> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [nodeScript, redisUrl, name], {
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    children.push(child);
    const timer = setTimeout(() => reject(new Error(`process ${name} did not start`)), 10_000);
    const input = createInterface({ input: child.stdout! });
    input.once('line', (line) => {
      clearTimeout(timer);
      resolve(line);
      input.on('line', (later) => lines.push(later));
    });
    child.once('exit', (code) => reject(new Error(`process ${name} exited with ${code}`)));
  });
}

describe.skipIf(skip)('an MCP server on two processes, one Redis, no affinity', () => {
  const redis = useRedisServer();
  const children: ChildProcess[] = [];
  const names = ['a', 'b'];
  const lines: string[] = [];
  let proxy: Awaited<ReturnType<typeof roundRobin>>;

  beforeAll(async () => {
    const backends = await Promise.all(names.map((n) => startNode(redis.url, n, children, lines)));
    proxy = await roundRobin(backends);
  });
  afterAll(async () => {
    await proxy?.close();
    for (const child of children) if (child.exitCode === null) child.kill('SIGKILL');
  });

  it('the SDK client: calls on both processes; elicit() asked on one process, answered through the other; a call cancelled through the other', async () => {
    const asked: string[] = [];
    const client = new McpClient(
      { name: 'sdk', version: '0' },
      { capabilities: { elicitation: {} } },
    );
    client.setRequestHandler(ElicitRequestSchema, async (request) => {
      asked.push(request.params.message);
      return { action: 'accept', content: { ok: true } };
    });
    await client.connect(new StreamableHTTPClientTransport(new URL(proxy.url)));
    try {
      const text = async (name: string, args: Record<string, unknown> = {}) => {
        const result = await client.callTool({ name, arguments: args }, undefined, {
          timeout: 8000,
        });
        expect(result.isError).toBeFalsy();
        return (result.content as { text: string }[])[0]!.text;
      };
      // Plain calls reach both processes.
      expect([await text('whoami'), await text('whoami')].sort()).toEqual(names);
      // Two questions: a call between them puts the second on the other process.
      const ran: string[] = [];
      for (const question of ['First?', 'Second?']) {
        const before = proxy.log.length;
        const answer = JSON.parse(await text('confirm', { question })) as {
          ran: string;
          action: string;
          content: unknown;
        };
        expect(answer).toMatchObject({ action: 'accept', content: { ok: true } });
        ran.push(answer.ran);
        // Through the balancer meanwhile: the call, then the client's answer to the question.
        const passed = proxy.log.slice(before);
        const call = passed.find((p) => p.body.includes('"tools/call"'));
        const reply = passed.find((p) => p.method === 'POST' && /"result"/.test(p.body));
        expect(call).toBeDefined();
        expect(reply).toBeDefined();
        expect(names[call!.backend]).toBe(answer.ran);
        // The answer reached the process that did not ask.
        expect(reply!.backend).not.toBe(call!.backend);
        await text('whoami');
      }
      expect(asked).toEqual(['First?', 'Second?']);
      // Each process ran one, so one of them never saw the client's initialize.
      expect(ran.sort()).toEqual(names);
      const initialize = proxy.log.find((p) => p.body.includes('"initialize"'))!;
      expect(ran).toContain(names[1 - initialize.backend]);

      // A call cancelled through the other process than the one running it.
      const before = proxy.log.length;
      const abort = new AbortController();
      const slow = client.callTool({ name: 'slow' }, undefined, { signal: abort.signal });
      const settled = slow.then(
        () => 'answered',
        () => 'aborted',
      );
      await expect
        .poll(() => proxy.log.slice(before).some((p) => p.body.includes('"slow"')), {
          timeout: 3000,
        })
        .toBe(true);
      abort.abort();
      expect(await settled).toBe('aborted');
      const call = proxy.log.slice(before).find((p) => p.body.includes('"slow"'))!;
      await expect
        .poll(() => proxy.log.slice(before).find((p) => p.body.includes('cancelled')), {
          timeout: 3000,
        })
        .toBeDefined();
      const cancel = proxy.log.slice(before).find((p) => p.body.includes('cancelled'))!;
      expect(cancel.backend).not.toBe(call.backend);
      await expect
        .poll(() => lines, { timeout: 3000 })
        .toContain(`cancelled ${names[call.backend]}`);
    } finally {
      await client.close();
    }
  });
});
