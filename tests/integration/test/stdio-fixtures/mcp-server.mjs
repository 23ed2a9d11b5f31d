// The MCP SDK's stdio server transport (newline framing), answering by hand.
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';

const transport = new StdioServerTransport();
transport.onmessage = (message) => {
  if (message.method === 'echo' && message.id !== undefined) {
    void transport.send({ jsonrpc: '2.0', id: message.id, result: { echoed: message.params } });
  }
};
await transport.start();
process.stdin.on('end', () => process.exit(0));
