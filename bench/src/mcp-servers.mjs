/**
 * The MCP servers the MCP rows (19) compare: the kit's `createMcpServer` and the MCP SDK's
 * `McpServer`, each with one tool, `add`, whose input `{ a: number, b: number }` is checked by the
 * same zod schema, answering `{ content: [{ type: 'text', text: '3' }] }`; and, as the baseline,
 * a bare kit server whose hand-written `tools/call` checks nothing.
 */
import { z } from 'zod';
import { kit } from './common.mjs';

/** The answer of every `add`: its text. */
const addResult = ({ a, b }) => ({ content: [{ type: 'text', text: String(a + b) }] });

/** The kit's MCP server with the `add` tool. */
export async function kitMcp() {
  const { createMcpServer } = await kit('@jsonrpc-kit/mcp', 'createMcpServer');
  const mcp = createMcpServer({
    name: 'bench',
    version: '1',
    server: { maxConcurrency: 1024 },
  });
  mcp.tool(
    'add',
    { description: 'Adds two numbers', input: z.object({ a: z.number(), b: z.number() }) },
    addResult,
  );
  return mcp;
}

/** The MCP SDK's `McpServer` with the `add` tool (its documented high-level API). */
export async function sdkMcp() {
  const { McpServer } = await import('@modelcontextprotocol/sdk/server/mcp.js');
  const mcp = new McpServer({ name: 'bench', version: '1' });
  mcp.registerTool(
    'add',
    { description: 'Adds two numbers', inputSchema: { a: z.number(), b: z.number() } },
    addResult,
  );
  return mcp;
}

/** A bare kit server answering MCP's `initialize` and a hand-written `tools/call`. */
export async function bareKit() {
  const { createServer } = await kit('@jsonrpc-kit/server', 'createServer');
  const { mcpProfile } = await import('@jsonrpc-kit/core');
  const server = createServer({ maxConcurrency: 1024, profile: mcpProfile });
  server.method('initialize', (params) => ({
    protocolVersion: params.protocolVersion,
    capabilities: { tools: {} },
    serverInfo: { name: 'bench', version: '1' },
  }));
  server.notification('notifications/initialized', () => {});
  server.method('tools/call', (params) => addResult(params.arguments));
  return server;
}
