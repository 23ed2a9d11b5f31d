#!/usr/bin/env node
/**
 * The everything server on Streamable HTTP: `node dist/server.js [--port N] [--host H]` prints
 * `listening http://HOST:PORT/mcp` as its first line of stdout and serves until killed.
 *
 * @module
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createMcpNodeHandler, MCP_PUSH_METHODS } from '@jsonrpc-kit/mcp';
import { createStreamableHttpNodeHandler } from '@jsonrpc-kit/transport-http/node';
import { createEverythingServer } from './everything.js';

const args = process.argv.slice(2);
const option = (name: string): string | undefined => {
  const at = args.indexOf(name);
  return at === -1 ? undefined : args[at + 1];
};

const mcp = createEverythingServer();
// 2025 clients: the kit's Streamable HTTP handler (sessions); 2026 clients: stateless, same URL.
const handler = createStreamableHttpNodeHandler(mcp.server, { pushMethods: MCP_PUSH_METHODS });
const endpoint = createMcpNodeHandler(mcp, handler);
const http = createServer((req, res) => {
  if (new URL(req.url ?? '/', 'http://x').pathname === '/mcp') endpoint(req, res);
  else res.writeHead(404).end();
});
http.listen(Number(option('--port') ?? '0'), option('--host') ?? '127.0.0.1', () => {
  const { address, port, family } = http.address() as AddressInfo;
  process.stdout.write(
    `listening http://${family === 'IPv6' ? `[${address}]` : address}:${port}/mcp\n`,
  );
});
const stop = (): void => {
  mcp.stop();
  http.close();
  http.closeAllConnections();
  void handler.close().then(() => mcp.close());
};
process.once('SIGINT', stop);
process.once('SIGTERM', stop);
