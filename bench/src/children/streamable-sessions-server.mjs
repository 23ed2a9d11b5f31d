/**
 * Streamable HTTP server child for the idle-sessions scenarios:
 * `node streamable-sessions-server.mjs <impl>`. Serves MCP-style sessions at `/` on 127.0.0.1,
 * port 0, prints `{ "port": n }`, and answers `GET /__stats` (memory and CPU of this process) on
 * the same port. A POST of `initialize` without a session id starts a session (its id in the
 * `Mcp-Session-Id` header); a GET with a session id opens that session's event stream.
 * The kit runs with its defaults except the session caps (in all and per client), lifted for the
 * row: every session comes from this machine's one address.
 */
import { randomUUID } from 'node:crypto';
import { createServer as createHttpServer } from 'node:http';
import { add, kit, METHOD, reportReady, serverMain, serveStats } from '../common.mjs';

const impl = process.argv[2];

/** What every implementation answers to `initialize`. */
const INITIALIZE_RESULT = {
  protocolVersion: '2025-06-18',
  capabilities: { tools: {} },
  serverInfo: { name: 'bench', version: '1' },
};

function listen(server) {
  return new Promise((resolve) =>
    server.listen(0, '127.0.0.1', () => resolve(server.address().port)),
  );
}

async function readBody(req) {
  let text = '';
  req.setEncoding('utf8');
  for await (const chunk of req) text += chunk;
  return text;
}

/**
 * The least a session can cost: a `Map` from a random id to a small record; `initialize` answered
 * with JSON, a GET holds its response open as the session's event stream.
 */
function rawHandler() {
  const sessions = new Map();
  return async (req, res) => {
    const id = req.headers['mcp-session-id'];
    if (req.method === 'GET') {
      const session = sessions.get(id);
      if (session === undefined) return res.writeHead(404).end();
      session.stream = res;
      res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
      res.flushHeaders();
      return;
    }
    const message = JSON.parse(await readBody(req));
    if (id === undefined && message.method === 'initialize') {
      const sessionId = randomUUID();
      sessions.set(sessionId, { lastActive: Date.now(), stream: undefined });
      const body = JSON.stringify({ jsonrpc: '2.0', id: message.id, result: INITIALIZE_RESULT });
      res.writeHead(200, { 'content-type': 'application/json', 'mcp-session-id': sessionId });
      return res.end(body);
    }
    if (!sessions.has(id)) return res.writeHead(404).end();
    res.writeHead(202).end();
  };
}

/** The kit: `createStreamableHttpNodeHandler` with its defaults, the session cap lifted. */
async function kitHandler() {
  const { createServer } = await kit('@jsonrpc-kit/server', 'createServer');
  const { createStreamableHttpNodeHandler } = await kit(
    '@jsonrpc-kit/transport-http',
    'createStreamableHttpNodeHandler',
  );
  const server = createServer({});
  server.method('initialize', () => INITIALIZE_RESULT);
  server.notification('notifications/initialized', () => {});
  server.method(METHOD, add);
  return createStreamableHttpNodeHandler(server, {
    sessions: {
      maxSessions: Number.POSITIVE_INFINITY,
      maxSessionsPerClient: Number.POSITIVE_INFINITY,
    },
  });
}

/**
 * The MCP SDK's documented stateful pattern: per session, a `StreamableHTTPServerTransport` and an
 * `McpServer` with one tool, kept in a map by session id until the transport closes.
 */
async function sdkHandler() {
  const { McpServer } = await import('@modelcontextprotocol/sdk/server/mcp.js');
  const { StreamableHTTPServerTransport } = await import(
    '@modelcontextprotocol/sdk/server/streamableHttp.js'
  );
  const transports = new Map();
  return async (req, res) => {
    const id = req.headers['mcp-session-id'];
    let transport = id === undefined ? undefined : transports.get(id);
    if (transport === undefined) {
      if (id !== undefined || req.method !== 'POST') return res.writeHead(404).end();
      transport = new StreamableHTTPServerTransport({
        sessionIdGenerator: () => randomUUID(),
        onsessioninitialized: (sid) => transports.set(sid, transport),
      });
      transport.onclose = () => transports.delete(transport.sessionId);
      const mcp = new McpServer({ name: 'bench', version: '1' });
      mcp.registerTool(METHOD, { description: 'adds 1 and 2' }, () => ({
        content: [{ type: 'text', text: String(add({ a: 1, b: 2 })) }],
      }));
      await mcp.connect(transport);
    }
    await transport.handleRequest(req, res);
  };
}

/**
 * The kit's MCP server (`createMcpServer`, one tool as the SDK's) behind
 * `createStreamableHttpNodeHandler` with its defaults, the session cap lifted.
 */
async function kitMcpHandler() {
  const { createMcpServer, MCP_PUSH_METHODS } = await import('@jsonrpc-kit/mcp');
  const { createStreamableHttpNodeHandler } = await kit(
    '@jsonrpc-kit/transport-http',
    'createStreamableHttpNodeHandler',
  );
  const mcp = createMcpServer({ name: 'bench', version: '1' });
  mcp.tool(METHOD, { description: 'adds 1 and 2' }, () => String(add({ a: 1, b: 2 })));
  return createStreamableHttpNodeHandler(mcp.server, {
    sessions: {
      maxSessions: Number.POSITIVE_INFINITY,
      maxSessionsPerClient: Number.POSITIVE_INFINITY,
    },
    pushMethods: MCP_PUSH_METHODS,
  });
}

const factories = {
  raw: rawHandler,
  kit: kitHandler,
  'kit-mcp': kitMcpHandler,
  'mcp-sdk': sdkHandler,
};

await serverMain(async () => {
  const handler = await factories[impl]();
  const http = createHttpServer();
  serveStats(http, (req, res) => {
    Promise.resolve(handler(req, res)).catch((error) => {
      if (!res.headersSent) res.writeHead(500);
      res.end(String(error));
    });
  });
  reportReady({ port: await listen(http) });
});
