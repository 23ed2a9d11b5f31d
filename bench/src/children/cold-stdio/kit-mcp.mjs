/**
 * Cold-start stdio server child, the kit's MCP server: `createMcpServer` + `createStdioTransport`,
 * newline framing (answers `ping`), as the `mcp-sdk` child. Reports `ready <ms>` on stderr:
 * `process.uptime()` when its own code starts, its imports loaded.
 */
import { createMcpServer } from '@jsonrpc-kit/mcp';
import { createStdioTransport } from '@jsonrpc-kit/transport-stdio';

process.stderr.write(`ready ${process.uptime() * 1000}\n`);
const server = createMcpServer({ name: 'bench', version: '1.0.0' });
server.connect(createStdioTransport({ framing: 'newline' }));
process.stdin.on('end', () => process.exit(0));
