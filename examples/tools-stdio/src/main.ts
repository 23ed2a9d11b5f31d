/**
 * Starts the MCP tool server as a child process over stdio (newline framing) and talks MCP to it
 * with the kit's client: initialize, list the tools, call them, and show both kinds of failure.
 *
 * @module
 */
import { fileURLToPath, pathToFileURL } from 'node:url';
import { createClient } from '@jsonrpc-kit/client';
import { JsonRpcError } from '@jsonrpc-kit/core';
import { type TapDirection, tapTransport } from '@jsonrpc-kit/core/testing';
import type { CallToolResult } from '@jsonrpc-kit/mcp';
import { spawnTransport } from '@jsonrpc-kit/transport-stdio';
import { runHttp } from './http-demo.js';
import { textOf } from './tools.js';

/** Prints one line. */
export type Log = (line: string) => void;

/** Prints each message of a tapped transport as `→ text` (sent) or `← text` (received). */
const wire = (log: Log) => (direction: TapDirection, message: string) =>
  log(`${direction === 'sent' ? '→' : '←'} ${message}`);

/** The built server this example spawns. */
export const SERVER_JS: string = fileURLToPath(new URL('../dist/server.js', import.meta.url));

function check(condition: boolean, what: string): void {
  if (!condition) throw new Error(`tools-stdio: ${what}`);
}

/**
 * Runs the example.
 *
 * @param log - where to print
 * @returns resolves when the child has exited
 * @throws Error when an answer is not what the server must answer
 * @example
 * ```ts
 * await run(console.log);
 * ```
 */
export async function run(log: Log = console.log): Promise<void> {
  log(`tools-stdio: spawning node ${SERVER_JS} (newline framing)`);
  const child = spawnTransport(process.execPath, [SERVER_JS, '--quiet'], { framing: 'newline' });
  const client = createClient(tapTransport(child, wire(log)), { callTimeout: 5_000 });
  try {
    const init = await client.request<{ protocolVersion: string; serverInfo: { name: string } }>(
      'initialize',
      {
        protocolVersion: '2025-06-18',
        capabilities: {},
        clientInfo: { name: 'jsonrpc-kit-example', version: '0.0.0' },
      },
    );
    check(init.protocolVersion === '2025-06-18', 'protocol version');
    await client.notify('notifications/initialized');

    const { tools } = await client.request<{ tools: Array<{ name: string }> }>('tools/list');
    check(tools.map((tool) => tool.name).join() === 'add,echo,countdown', 'tools/list');

    const sum = await client.request<CallToolResult>('tools/call', {
      name: 'add',
      arguments: { a: 2, b: 40 },
    });
    check(textOf(sum) === '42', 'add');
    const echo = await client.request<CallToolResult>('tools/call', {
      name: 'echo',
      arguments: { text: 'hello, tools' },
    });
    check(textOf(echo) === 'hello, tools', 'echo');

    log('a tool failure is a result with isError: true');
    const bad = await client.request<CallToolResult>('tools/call', {
      name: 'add',
      arguments: { a: 'two' },
    });
    check(bad.isError === true, 'isError');

    log('an unknown tool is JSON-RPC error -32602');
    try {
      await client.request('tools/call', { name: 'nope', arguments: {} });
      check(false, 'unknown tool must fail');
    } catch (error) {
      check(error instanceof JsonRpcError && error.code === -32602, 'unknown tool code');
    }
  } finally {
    await client.close();
  }
  const exit = await child.exit;
  log(`server exited (code ${exit.code ?? exit.signal})`);
  await runHttp(SERVER_JS, log);
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  run(console.log).catch((error: unknown) => {
    console.error(error);
    process.exit(1);
  });
}
