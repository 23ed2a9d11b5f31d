import { fileURLToPath } from 'node:url';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { afterEach, describe, expect, it } from 'vitest';
import { startHttpServer } from '../src/http-demo.js';

const SERVER_JS = fileURLToPath(new URL('../dist/server.js', import.meta.url));

const cleanups: (() => Promise<unknown>)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

async function connect(): Promise<{ client: Client; url: string }> {
  const { url, stop } = await startHttpServer(SERVER_JS);
  cleanups.push(stop);
  const client = new Client({ name: 'sdk', version: '1.0.0' });
  await client.connect(new StreamableHTTPClientTransport(new URL(url)));
  cleanups.push(() => client.close());
  return { client, url };
}

describe('the tools server on Streamable HTTP (--http --port 0), from the MCP SDK', () => {
  it('prints its address first, lists add and countdown, and adds', async () => {
    const { client, url } = await connect();
    expect(url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/mcp$/);
    const { tools } = await client.listTools();
    expect(tools.map((t) => t.name)).toEqual(['add', 'echo', 'countdown']);
    expect(await client.callTool({ name: 'add', arguments: { a: 2, b: 40 } })).toEqual({
      content: [{ type: 'text', text: '42' }],
    });
  });

  it('reports progress of countdown and honours cancellation', async () => {
    const { client } = await connect();
    const seen: number[] = [];
    const done = await client.callTool(
      { name: 'countdown', arguments: { steps: 3, delayMs: 5 } },
      undefined,
      {
        onprogress: (p) => seen.push(p.progress),
      },
    );
    expect(seen).toEqual([1, 2, 3]);
    expect(done.content).toEqual([{ type: 'text', text: 'counted down 3' }]);

    const controller = new AbortController();
    const steps: number[] = [];
    const call = client.callTool(
      { name: 'countdown', arguments: { steps: 1000, delayMs: 10 } },
      undefined,
      {
        signal: controller.signal,
        onprogress: (p) => {
          steps.push(p.progress);
          if (p.progress === 2) controller.abort('enough');
        },
      },
    );
    await expect(call).rejects.toThrow();
    const at = steps.length;
    await new Promise((resolve) => setTimeout(resolve, 100));
    // No progress after the cancellation reached the server (at most one in flight).
    expect(steps.length).toBeLessThanOrEqual(at + 1);
    expect(await client.callTool({ name: 'add', arguments: { a: 1, b: 1 } })).toEqual({
      content: [{ type: 'text', text: '2' }],
    });
  });
});
