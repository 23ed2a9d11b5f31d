#!/usr/bin/env node
/**
 * The MCP tool server: on stdio (newline framing) by default, or on Streamable HTTP with
 * `--http [--port N] [--host H]`, which prints `listening http://HOST:PORT/mcp` as its first line of
 * stdout. On stdio, stdout carries framed messages only; logs go to stderr.
 *
 * @module
 */
import { createServer as createHttpServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { MCP_PUSH_METHODS } from '@jsonrpc-kit/mcp';
import { createStreamableHttpNodeHandler } from '@jsonrpc-kit/transport-http/node';
import { createStdioTransport } from '@jsonrpc-kit/transport-stdio';
import { createToolsServer } from './tools.js';

const args = process.argv.slice(2);
const quiet = args.includes('--quiet');
const log = (line: string): void => {
  if (!quiet) process.stderr.write(`[tools-stdio] ${line}\n`);
};
const option = (name: string): string | undefined => {
  const at = args.indexOf(name);
  return at === -1 ? undefined : args[at + 1];
};

const mcp = createToolsServer(log);

if (args.includes('--http')) {
  const host = option('--host') ?? '127.0.0.1';
  const port = Number(option('--port') ?? '0');
  // One endpoint, /mcp; each MCP session is one connection of the server.
  const handler = createStreamableHttpNodeHandler(mcp.server, { pushMethods: MCP_PUSH_METHODS });
  const http = createHttpServer((req, res) => {
    if (new URL(req.url ?? '/', 'http://x').pathname !== '/mcp') {
      res.writeHead(404).end();
      return;
    }
    handler(req, res);
  });
  http.listen(port, host, () => {
    const address = http.address() as AddressInfo;
    const shown = address.family === 'IPv6' ? `[${address.address}]` : address.address;
    process.stdout.write(`listening http://${shown}:${address.port}/mcp\n`);
  });
  const stop = (): void => {
    http.close();
    http.closeAllConnections();
    void handler.close().then(() => mcp.close());
  };
  process.once('SIGINT', stop);
  process.once('SIGTERM', stop);
} else {
  const connection = mcp.connect(createStdioTransport({ framing: 'newline' }), {
    kind: 'stdio',
  });
  connection.closed
    .then(() => mcp.close())
    .catch((error: unknown) => log(`closing: ${String(error)}`));
}
