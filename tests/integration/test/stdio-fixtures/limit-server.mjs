// A @jsonrpc-kit server over this process's stdio, for size-limit tests.
// Usage: node limit-server.mjs <framing> [limit in bytes | "default"]
import { createServer } from '@jsonrpc-kit/server';
import { createStdioTransport } from '@jsonrpc-kit/transport-stdio';

const limit = process.argv[3] === undefined ? 1024 * 1024 : process.argv[3];
const reported = [];
const server = createServer({
  ...(limit === 'default' ? {} : { maxMessageBytes: Number(limit) }),
  onError: (error, info) => reported.push({ code: error.reason ?? error.code, ...info }),
});
server.method('length', (params) => JSON.stringify(params).length);
server.method('reported', () => reported);
server.notification('textDocument/didOpen', () => {});
// Just enough MCP for the SDK's Client.
server.method('initialize', (params) => ({
  protocolVersion: params.protocolVersion,
  capabilities: { tools: {} },
  serverInfo: { name: 'limit-server', version: '0.0.0' },
}));
server.notification('notifications/initialized', () => {});
server.method('tools/call', (params) => ({
  content: [{ type: 'text', text: String(params.arguments.text.length) }],
}));
server.connect(createStdioTransport({ framing: process.argv[2] ?? 'auto' }));
