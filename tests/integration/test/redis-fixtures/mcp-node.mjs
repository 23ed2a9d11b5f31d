// One process of an MCP server scaled out on Redis: sessions, events and what the server knows of
// each client in Redis, answers to its requests to clients relayed over Redis pub/sub, so that
// any process serves any request of a session. argv: <redis url> <process name>. Prints its URL.
import { createServer as createHttpServer } from 'node:http';
import { createMcpServer, MCP_PUSH_METHODS } from '@jsonrpc-kit/mcp';
import {
  createRedisEventStore,
  createRedisFanout,
  createRedisSessionStore,
} from '@jsonrpc-kit/redis';
import { createStreamableHttpNodeHandler } from '@jsonrpc-kit/transport-http/node';
import * as v from 'valibot';

const [url, name] = process.argv.slice(2);
const DAY = 24 * 60 * 60 * 1000;
const records = await createRedisSessionStore({ url, keyPrefix: 'mcp-client:' });
const mcp = createMcpServer({
  name: `cluster-${name}`,
  version: '0.0.0',
  clients: {
    // Each request reads its client's record, and keeps it a day past the session's last request.
    load: (id) => records.lookup(id, DAY),
    save: (id, record) => records.create(id, record, DAY),
  },
});
mcp.tool('whoami', { description: 'Which process answers' }, () => name);
// Asks the user, on the process that runs the call; the answer may come back through any other.
mcp.tool(
  'confirm',
  { description: 'Asks the user to confirm', input: v.object({ question: v.string() }) },
  async ({ question }, ctx) => {
    const answer = await ctx.elicit(
      {
        message: question,
        requestedSchema: { type: 'object', properties: { ok: { type: 'boolean' } } },
      },
      { timeout: 10_000 },
    );
    return JSON.stringify({ ran: name, action: answer.action, content: answer.content });
  },
);
// Runs until cancelled (at most 10 s), then says so on stdout: the cancellation may reach any process.
mcp.tool('slow', { description: 'Waits to be cancelled' }, async (_args, ctx) => {
  const aborted = await new Promise((resolve) => {
    const timer = setTimeout(() => resolve(false), 10_000);
    ctx.signal.addEventListener('abort', () => {
      clearTimeout(timer);
      resolve(true);
    });
  });
  if (aborted) process.stdout.write(`cancelled ${name}\n`);
  return 'not cancelled';
});

const sessionStore = await createRedisSessionStore({ url });
const eventStore = await createRedisEventStore({ url });
const relay = await createRedisFanout({ url });
const handler = createStreamableHttpNodeHandler(mcp.server, {
  sessions: { store: sessionStore, relay },
  eventStore,
  pushMethods: MCP_PUSH_METHODS,
  keepAliveInterval: 0,
});
const http = createHttpServer(handler);
http.listen(0, '127.0.0.1', () => {
  process.stdout.write(`http://127.0.0.1:${http.address().port}/mcp\n`);
});
process.on('SIGTERM', async () => {
  http.closeAllConnections();
  await handler.close();
  await mcp.close();
  await Promise.all([sessionStore.close(), eventStore.close(), relay.close(), records.close()]);
  process.exit(0);
});
