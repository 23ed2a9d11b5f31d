/**
 * Streamable HTTP servers for the benchmarks: the kit's streaming handler, its plain
 * request/response handler, and the MCP SDK's StreamableHTTPServerTransport, each serving one
 * `tools/call` tool; and a raw undici client that initializes a session and calls it (64 in
 * flight). Used by the `streamable-http` scenario and by `src/streamable-http.mjs`.
 */
import { randomUUID } from 'node:crypto';
import { createServer as createHttpServer } from 'node:http';
import { Server as McpServer } from '@modelcontextprotocol/sdk/server/index.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { CallToolRequestSchema } from '@modelcontextprotocol/sdk/types.js';
import { Pool } from 'undici';
import { INITIALIZE_TEXT as INIT, kit, lanesFor } from '../common.mjs';

function listen(handler) {
  const http = createHttpServer(handler);
  return new Promise((resolve) => {
    http.listen(0, '127.0.0.1', () =>
      resolve({ http, url: `http://127.0.0.1:${http.address().port}/` }),
    );
  });
}

/**
 * The kit's streaming handler; `tools/call` of `flood` first sends `notifications` messages.
 *
 * @param {'auto' | 'sse' | 'json'} responseMode
 * @param {number} [notifications]
 */
export async function kitServer(responseMode, notifications = 0) {
  const { createServer } = await kit('@jsonrpc-kit/server', 'createServer');
  const { createStreamableHttpNodeHandler } = await kit(
    '@jsonrpc-kit/transport-http',
    'createStreamableHttpNodeHandler',
  );
  const server = createServer({ maxConcurrency: 1024 });
  server.method('initialize', () => ({
    protocolVersion: '2025-06-18',
    capabilities: { tools: {} },
    serverInfo: { name: 'kit', version: '1' },
  }));
  server.notification('notifications/initialized', () => {});
  server.method('tools/call', async (params, ctx) => {
    if (params.name === 'flood') {
      for (let i = 0; i < notifications; i++)
        await ctx.peer.notify('notifications/message', { level: 'info', data: i });
    }
    return { content: [{ type: 'text', text: String(params.arguments.a + params.arguments.b) }] };
  });
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

/**
 * The MCP SDK's server, one transport per session; `flood` as in {@link kitServer}.
 *
 * @param {boolean} json - `enableJsonResponse`
 * @param {number} [notifications]
 */
export async function sdkServer(json, notifications = 0) {
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
      const mcp = new McpServer(
        { name: 'sdk', version: '1' },
        { capabilities: { tools: {}, logging: {} } },
      );
      mcp.setRequestHandler(CallToolRequestSchema, async (request, extra) => {
        if (request.params.name === 'flood') {
          for (let i = 0; i < notifications; i++) {
            await extra.sendNotification({
              method: 'notifications/message',
              params: { level: 'info', data: i },
            });
          }
        }
        const { a, b } = request.params.arguments;
        return { content: [{ type: 'text', text: String(a + b) }] };
      });
      await mcp.connect(transport);
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

/** A raw client: initialize, then tools/call POSTs with the session id; reads JSON or SSE. */
export async function rawClient(url) {
  const origin = new URL(url).origin;
  const pool = new Pool(origin, { connections: 64 });
  const headers = {
    'content-type': 'application/json',
    accept: 'application/json, text/event-stream',
  };
  const init = await pool.request({ path: '/', method: 'POST', headers, body: INIT });
  await init.body.text();
  const session = init.headers['mcp-session-id'];
  const withSession = {
    ...headers,
    'mcp-session-id': session,
    'mcp-protocol-version': '2025-06-18',
  };
  const note = await pool.request({
    path: '/',
    method: 'POST',
    headers: withSession,
    body: '{"jsonrpc":"2.0","method":"notifications/initialized"}',
  });
  await note.body.text();
  let id = 1;
  const call = async (name) => {
    const body = JSON.stringify({
      jsonrpc: '2.0',
      id: ++id,
      method: 'tools/call',
      params: { name, arguments: { a: 1, b: 2 } },
    });
    const r = await pool.request({ path: '/', method: 'POST', headers: withSession, body });
    const text = await r.body.text();
    if (!text.includes('"text":"3"'))
      throw new Error(`wrong answer: ${JSON.stringify(text.slice(-400))}`);
    return text;
  };
  return { call, close: () => pool.close() };
}

/** The plain (request/response) kit handler, as a reference. */
export async function plainKitServer() {
  const { createServer } = await kit('@jsonrpc-kit/server', 'createServer');
  const { createHttpHandler } = await kit('@jsonrpc-kit/transport-http', 'createHttpHandler');
  const server = createServer({ maxConcurrency: 1024 });
  server.method('initialize', () => ({ protocolVersion: '2025-06-18' }));
  server.notification('notifications/initialized', () => {});
  server.method('tools/call', (params) => ({
    content: [{ type: 'text', text: String(params.arguments.a + params.arguments.b) }],
  }));
  const { http, url } = await listen(createHttpHandler(server));
  return {
    url,
    stop: async () => {
      http.closeAllConnections();
      http.close();
    },
  };
}

const servers = {
  'kit createHttpHandler': () => plainKitServer(),
  'kit streaming (JSON answers)': () => kitServer('auto'),
  'MCP SDK (enableJsonResponse)': () => sdkServer(true),
};

/**
 * Calls/s of `tools/call` answered with JSON, 64 in flight over one session.
 *
 * @param {string} impl - a key of `servers`
 * @param {{ warmupMs: number, measureMs: number }} config
 */
export async function run(impl, config) {
  const server = await servers[impl]();
  try {
    const client = await rawClient(server.url);
    try {
      if (!(await client.call('add')).startsWith('{'))
        throw new Error(`${impl}: not a JSON answer`);
      await lanesFor(() => client.call('add'), 64, config.warmupMs, 1);
      return { value: await lanesFor(() => client.call('add'), 64, config.measureMs, 1) };
    } finally {
      await client.close();
    }
  } finally {
    await server.stop();
  }
}
