// One process of an MCP server whose tasks live in Redis (the Tasks extension): a task started on
// one process is polled, answered and cancelled on any other. argv: <redis url> <process name>.
// Prints its URL.
import { createServer as createHttpServer } from 'node:http';
import { createMcpNodeHandler, createMcpServer, MCP_PUSH_METHODS } from '@jsonrpc-kit/mcp';
import { createRedisTaskStore } from '@jsonrpc-kit/redis';
import { createStreamableHttpNodeHandler } from '@jsonrpc-kit/transport-http/node';

const [url, name] = process.argv.slice(2);
const store = await createRedisTaskStore({ url, keyPrefix: 'cluster-tasks:' });
const mcp = createMcpServer({
  name: `tasks-${name}`,
  version: '0.0.0',
  tasks: { store, pollIntervalMs: 50 },
});
// The tasks whose signal aborted on this process.
const aborted = [];
mcp.tool(
  'job',
  {
    description: 'Works for `ms` as a task, on the process that took the call',
    input: { type: 'object', properties: { ms: { type: 'number' } }, required: ['ms'] },
    taskSupport: 'optional',
  },
  async ({ ms }, ctx) => {
    await ctx.startTask();
    await new Promise((resolve, reject) => {
      const timer = setTimeout(resolve, ms);
      ctx.signal.addEventListener('abort', () => {
        clearTimeout(timer);
        aborted.push(ctx.taskId);
        reject(ctx.signal.reason);
      });
    });
    return `job done on ${name}`;
  },
);
mcp.tool(
  'confirm',
  { description: 'A task that asks for a confirmation', taskSupport: 'required' },
  async (_args, ctx) => {
    await ctx.startTask();
    const answer = await ctx.elicit({
      message: 'Go on?',
      requestedSchema: { type: 'object', properties: { by: { type: 'string' } } },
    });
    return `confirmed by ${answer.content?.by} on ${name}`;
  },
);
mcp.tool('aborted', { description: 'The tasks aborted on this process' }, () =>
  JSON.stringify(aborted),
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
  await store.close();
  process.exit(0);
});
