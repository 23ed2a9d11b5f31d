// One process of a stateless MCP server (2026-07-28) whose tool asks the client a question
// (`ctx.elicit()`): the question ends the round with an `input_required` result, and the retry
// may reach any process that has the same `requestState` key (env MRTR_KEY), since the answers
// travel in the sealed state, not in this process's memory. argv: <process name>. Prints its URL.
import { createServer as createHttpServer } from 'node:http';
import { createMcpNodeHandler, createMcpServer, MCP_PUSH_METHODS } from '@jsonrpc-kit/mcp';
import { createStreamableHttpNodeHandler } from '@jsonrpc-kit/transport-http/node';

const [name] = process.argv.slice(2);
const key = process.env.MRTR_KEY;
if (!key) throw new Error('MRTR_KEY is not set');
const mcp = createMcpServer({
  name: `mrtr-${name}`,
  version: '0.0.0',
  requestState: { keys: [key] },
});
// How often the `ask` handler started on this process, and how often it got an answer.
const runs = { started: 0, answered: 0 };
mcp.tool(
  'ask',
  {
    description: 'Asks who is there; answers with the reply and the process that got it',
    input: { type: 'object', properties: { question: { type: 'string' } }, required: ['question'] },
  },
  async ({ question }, ctx) => {
    runs.started++;
    const answer = await ctx.elicit(
      {
        message: question,
        requestedSchema: { type: 'object', properties: { by: { type: 'string' } } },
      },
      { key: 'who' },
    );
    runs.answered++;
    return JSON.stringify({
      action: answer.action,
      by: answer.content?.by,
      name,
      pid: process.pid,
    });
  },
);
mcp.tool('runs', { description: 'How often `ask` ran on this process' }, () =>
  JSON.stringify(runs),
);
const legacy = createStreamableHttpNodeHandler(mcp.server, { pushMethods: MCP_PUSH_METHODS });
const http = createHttpServer(createMcpNodeHandler(mcp, legacy));
http.listen(0, '127.0.0.1', () => {
  process.stdout.write(`http://127.0.0.1:${http.address().port}/mcp\n`);
});
process.on('SIGTERM', async () => {
  http.closeAllConnections();
  await legacy.close();
  await mcp.close();
  process.exit(0);
});
