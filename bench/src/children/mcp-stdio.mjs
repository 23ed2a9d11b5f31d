/**
 * stdio MCP server child of row 19c: `node mcp-stdio.mjs <bare|kit|sdk>` (see
 * `../mcp-servers.mjs`), newline framing, until stdin ends.
 */
import { kit } from '../common.mjs';
import { bareKit, kitMcp, sdkMcp } from '../mcp-servers.mjs';

const impl = process.argv[2];
process.stdin.on('end', () => process.exit(0));
if (impl === 'sdk') {
  const { StdioServerTransport } = await import('@modelcontextprotocol/sdk/server/stdio.js');
  await (await sdkMcp()).connect(new StdioServerTransport());
} else {
  const { createStdioTransport } = await kit(
    '@jsonrpc-kit/transport-stdio',
    'createStdioTransport',
  );
  const server = impl === 'kit' ? (await kitMcp()).server : await bareKit();
  server.connect(createStdioTransport({ framing: 'newline' }));
}
