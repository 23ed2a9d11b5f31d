/**
 * Scenarios 19a–19c: MCP servers answering `tools/call` (see `../mcp-servers.mjs`): the kit's
 * `createMcpServer`, the MCP SDK's `McpServer`, and a bare kit server with a hand-written
 * `tools/call` as the baseline (what the MCP layer adds). Over Streamable HTTP (one session, 64
 * calls in flight, the raw undici client of row 3c, server and client in one process) with JSON
 * or event-stream answers, and over stdio (a server child, 64 in flight, a raw newline client).
 */

import { spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { createServer as createHttpServer } from 'node:http';
import { fileURLToPath } from 'node:url';
import { INITIALIZE_TEXT, kit, lanes, lanesFor, nodeCommand } from '../common.mjs';
import { bareKit, kitMcp, sdkMcp } from '../mcp-servers.mjs';
import { coalescingWriter, decoder } from '../stdio-frames.mjs';
import { rawClient } from './streamable.mjs';

/** The baseline, the kit and the peer of every MCP row. */
export const BARE = 'kit bare tools/call';
export const KIT_MCP = 'kit createMcpServer';
export const SDK_MCP = 'MCP SDK McpServer';

function listen(handler) {
  const http = createHttpServer(handler);
  return new Promise((resolve) => {
    http.listen(0, '127.0.0.1', () =>
      resolve({ http, url: `http://127.0.0.1:${http.address().port}/` }),
    );
  });
}

/** A kit server (bare or MCP) behind the kit's Streamable HTTP handler. */
async function kitHttp(impl, responseMode) {
  const { createStreamableHttpNodeHandler } = await kit(
    '@jsonrpc-kit/transport-http',
    'createStreamableHttpNodeHandler',
  );
  const mcp = impl === KIT_MCP ? await kitMcp() : undefined;
  const server = mcp === undefined ? await bareKit() : mcp.server;
  const handler = createStreamableHttpNodeHandler(server, { responseMode, eventStore: false });
  const { http, url } = await listen(handler);
  return {
    url,
    stop: async () => {
      http.closeAllConnections();
      http.close();
      await handler.close();
    },
  };
}

/** The SDK's `McpServer`, one `StreamableHTTPServerTransport` per session (its stateful pattern). */
async function sdkHttp(json) {
  const { StreamableHTTPServerTransport } = await import(
    '@modelcontextprotocol/sdk/server/streamableHttp.js'
  );
  const transports = new Map();
  const { http, url } = await listen(async (req, res) => {
    const id = req.headers['mcp-session-id'];
    let transport = transports.get(id);
    if (transport === undefined) {
      transport = new StreamableHTTPServerTransport({
        sessionIdGenerator: () => randomUUID(),
        enableJsonResponse: json,
        onsessioninitialized: (sid) => transports.set(sid, transport),
      });
      await (await sdkMcp()).connect(transport);
    }
    await transport.handleRequest(req, res);
  });
  return {
    url,
    stop: async () => {
      http.closeAllConnections();
      http.close();
    },
  };
}

/**
 * Calls/s of `tools/call` over Streamable HTTP, 64 in flight over one session.
 *
 * @param {string} impl - {@link BARE}, {@link KIT_MCP} or {@link SDK_MCP}
 * @param {{ warmupMs: number, measureMs: number }} config
 * @param {'json' | 'sse'} answers - how each call is answered
 */
export async function runHttp(impl, config, answers) {
  const server =
    impl === SDK_MCP ? await sdkHttp(answers === 'json') : await kitHttp(impl, answers);
  try {
    const client = await rawClient(server.url);
    try {
      const first = await client.call('add');
      const streamed =
        first.startsWith('event:') || first.startsWith('data:') || first.startsWith('id:');
      if (streamed !== (answers === 'sse'))
        throw new Error(`${impl}: not a ${answers} answer: ${first.slice(0, 100)}`);
      await lanesFor(() => client.call('add'), 64, config.warmupMs, 1);
      return { value: await lanesFor(() => client.call('add'), 64, config.measureMs, 1) };
    } finally {
      await client.close();
    }
  } finally {
    await server.stop();
  }
}

const STDIO_CHILD = fileURLToPath(new URL('../children/mcp-stdio.mjs', import.meta.url));
const CHILD_NAMES = { [BARE]: 'bare', [KIT_MCP]: 'kit', [SDK_MCP]: 'sdk' };

/**
 * Calls/s of `tools/call` over stdio: a server child (pinned to CPU 1) after `initialize`, 64 in
 * flight, a fixed number of calls.
 *
 * @param {string} impl - {@link BARE}, {@link KIT_MCP} or {@link SDK_MCP}
 * @param {{ warmupCalls: number, calls: number }} config
 */
export async function runStdio(impl, config) {
  if (impl !== SDK_MCP) await kit('@jsonrpc-kit/transport-stdio', 'createStdioTransport');
  const [cmd, args] = nodeCommand(STDIO_CHILD, [CHILD_NAMES[impl]], 1);
  const child = spawn(cmd, args, { stdio: ['pipe', 'pipe', 'inherit'] });
  const exited = new Promise((resolve) => child.once('exit', resolve));
  const write = coalescingWriter(child.stdin, 'newline');
  const pending = new Map();
  let nextId = 0;
  child.stdout.on(
    'data',
    decoder('newline', (text) => {
      const m = JSON.parse(text);
      const p = pending.get(m.id);
      if (p === undefined) return;
      pending.delete(m.id);
      if (m.error !== undefined) p.reject(new Error(m.error.message));
      else p.resolve(m.result);
    }),
  );
  const request = (method, params) =>
    new Promise((resolve, reject) => {
      const id = ++nextId;
      pending.set(id, { resolve, reject });
      write(JSON.stringify({ jsonrpc: '2.0', id, method, params }));
    });
  const call = async () => {
    const result = await request('tools/call', { name: 'add', arguments: { a: 1, b: 2 } });
    if (result.content?.[0]?.text !== '3')
      throw new Error(`wrong answer: ${JSON.stringify(result)}`);
  };
  try {
    const init = JSON.parse(INITIALIZE_TEXT).params;
    const answer = await Promise.race([
      request('initialize', init),
      exited.then((code) => Promise.reject(new Error(`child exited with ${code}`))),
    ]);
    if (answer.protocolVersion !== init.protocolVersion)
      throw new Error(`wrong initialize answer: ${JSON.stringify(answer)}`);
    write('{"jsonrpc":"2.0","method":"notifications/initialized"}');
    await call();
    await lanes(call, 64, config.warmupCalls);
    return { value: await lanes(call, 64, config.calls) };
  } finally {
    const timer = setTimeout(() => child.kill('SIGKILL'), 2000);
    child.stdin.end();
    await exited;
    clearTimeout(timer);
  }
}
