/**
 * Cold-start stdio server child, the MCP SDK: `McpServer` + `StdioServerTransport`, newline
 * framing (answers `ping`). Reports `ready <ms>` on stderr: `process.uptime()` when its own code
 * starts, its imports loaded.
 */
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';

process.stderr.write(`ready ${process.uptime() * 1000}\n`);
const server = new McpServer({ name: 'bench', version: '1.0.0' });
await server.connect(new StdioServerTransport());
process.stdin.on('end', () => process.exit(0));
