/**
 * Streamable HTTP: the kit's handler against the MCP SDK's StreamableHTTPServerTransport, both
 * driven by the same raw undici client (one session, 64 calls in flight): calls/s with JSON answers
 * and with event-stream answers, and notifications/s delivered over one event stream.
 *
 *   node bench/src/streamable-http.mjs [--ms 2000]
 *
 * Server and client share one process (so the numbers compare the two servers, not absolute
 * capacity). Run after `pnpm build`.
 */
import { randomUUID } from 'node:crypto';
import { createServer as createHttpServer } from 'node:http';
import { Server as McpServer } from '@modelcontextprotocol/sdk/server/index.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { CallToolRequestSchema } from '@modelcontextprotocol/sdk/types.js';
import { Pool } from 'undici';
import { kit, lanesFor } from './common.mjs';

const at = process.argv.indexOf('--ms');
const MS = at === -1 ? 2000 : Number(process.argv[at + 1]);
const NOTIFICATIONS = Number(process.env.NOTIFICATIONS ?? 2000);
const INIT = JSON.stringify({
  jsonrpc: '2.0',
  id: 0,
  method: 'initialize',
  params: {
    protocolVersion: '2025-06-18',
    capabilities: {},
    clientInfo: { name: 'b', version: '1' },
  },
});

function listen(handler) {
  const http = createHttpServer(handler);
  return new Promise((resolve) => {
    http.listen(0, '127.0.0.1', () =>
      resolve({ http, url: `http://127.0.0.1:${http.address().port}/` }),
    );
  });
}

async function kitServer(responseMode) {
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
      for (let i = 0; i < NOTIFICATIONS; i++)
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

async function sdkServer(json) {
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
          for (let i = 0; i < NOTIFICATIONS; i++) {
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
async function rawClient(url) {
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

async function measure(label, start) {
  const server = await start();
  try {
    const client = await rawClient(server.url);
    const one = await client.call('add');
    const kind = one.startsWith('{') ? 'json' : 'sse';
    await lanesFor(() => client.call('add'), 64, Math.min(500, MS), 1);
    // CPU time per call (client and server share this process): steadier than calls/s on a
    // machine that other work shares.
    const cpu0 = process.cpuUsage();
    const w0 = process.hrtime.bigint();
    const rate = await lanesFor(() => client.call('add'), 64, MS, 1);
    const cpu = process.cpuUsage(cpu0);
    const calls = (rate * Number(process.hrtime.bigint() - w0)) / 1e9;
    const cpuPerCall = Math.round((cpu.user + cpu.system) / calls);
    const t0 = process.hrtime.bigint();
    const flood = await client.call(label.includes('no streaming') ? 'add' : 'flood');
    const seconds = Number(process.hrtime.bigint() - t0) / 1e9;
    const got = (flood.match(/notifications\/message/g) ?? []).length;
    await client.close();
    // A server answering JSON only has no stream to carry them (the SDK then drops them).
    const notificationsPerSecond =
      got === NOTIFICATIONS ? Math.round(NOTIFICATIONS / seconds) : `n/a (${got} arrived)`;
    return { label, kind, callsPerSecond: Math.round(rate), cpuPerCall, notificationsPerSecond };
  } finally {
    await server.stop();
  }
}

/** The plain (request/response) kit handler, as a reference. */
async function plainKitServer() {
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

const rows = [];
if (process.argv.includes('--plain'))
  rows.push(await measure('kit createHttpHandler (no streaming)', plainKitServer));
rows.push(await measure('kit (auto: JSON answers)', () => kitServer('auto')));
rows.push(await measure('kit (sse answers)', () => kitServer('sse')));
rows.push(await measure('MCP SDK (sse answers)', () => sdkServer(false)));
rows.push(await measure('MCP SDK (enableJsonResponse)', () => sdkServer(true)));
console.log(
  `| server | answers | calls/s (64 in flight) | CPU µs per call | notifications/s (one stream, ${NOTIFICATIONS}) |`,
);
console.log('| --- | --- | --- | --- | --- |');
for (const r of rows) {
  console.log(
    `| ${r.label} | ${r.kind} | ${r.callsPerSecond} | ${r.cpuPerCall} | ${r.notificationsPerSecond} |`,
  );
}
process.exit(0);
