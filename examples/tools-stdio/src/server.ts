#!/usr/bin/env node
/**
 * The MCP tool server on stdio (newline framing). stdout carries framed messages only; logs go
 * to stderr.
 *
 * @module
 */
import { createStdioTransport } from '@jsonrpc-kit/transport-stdio';
import { createMcpServer } from './mcp.js';
import { TOOLS } from './tools.js';

/** The name and version the server reports. */
export const SERVER_INFO = { name: 'jsonrpc-kit-tools-stdio', version: '0.0.0' } as const;

const quiet = process.argv.includes('--quiet');
const log = (line: string): void => {
  if (!quiet) process.stderr.write(`[tools-stdio] ${line}\n`);
};

const server = createMcpServer({ tools: TOOLS, info: SERVER_INFO, log });
const connection = server.connect(createStdioTransport({ framing: 'newline' }), { kind: 'stdio' });
connection.closed
  .then(() => server.close())
  .catch((error: unknown) => log(`closing: ${String(error)}`));
