// One process of a streaming-HTTP endpoint scaled out on Redis: sessions and events in Redis, so
// that any process continues any session. argv: <redis url> <process name>. Prints its URL.
import { createServer as createHttpServer } from 'node:http';
import { mcpProfile } from '@jsonrpc-kit/core';
import { createRedisEventStore, createRedisSessionStore } from '@jsonrpc-kit/redis';
import { createServer } from '@jsonrpc-kit/server';
import { createStreamableHttpNodeHandler } from '@jsonrpc-kit/transport-http/node';

const [url, name] = process.argv.slice(2);
const server = createServer({ profile: mcpProfile });
server.method('initialize', (params) => ({
  protocolVersion: params.protocolVersion,
  capabilities: { tools: {}, logging: {} },
  serverInfo: { name: `cluster-${name}`, version: '0.0.0' },
}));
server.notification('notifications/initialized', () => {});
server.method('tools/list', () => ({
  tools: ['whoami', 'emit'].map((tool) => ({ name: tool, inputSchema: { type: 'object' } })),
}));
// `whoami` says which process answered; `emit` pushes each value as a log message on the
// session's stream, after its answer (so on the GET stream, whatever the POST accepts); `flush`
// answers once this process's pushes are stored.
let pushed = Promise.resolve();
server.method('tools/call', async (params, ctx) => {
  const values = params.arguments?.values ?? [];
  if (params.name === 'emit') {
    pushed = new Promise((resolve) => setTimeout(resolve, 0)).then(async () => {
      for (const value of values) {
        await ctx.peer.notify('notifications/message', {
          level: 'info',
          data: { value, from: name },
        });
      }
    });
  }
  if (params.name === 'flush') await pushed;
  return { content: [{ type: 'text', text: params.name === 'whoami' ? name : 'ok' }] };
});
// The raw-bytes test asks for its pushes before the answer, in a POST that accepts only JSON.
server.method('emitNow', async ({ values }, ctx) => {
  for (const value of values) await ctx.peer.notify('tick', { value, from: name });
  return name;
});
server.method('whoami', () => name);

const sessionStore = await createRedisSessionStore({ url });
const eventStore = await createRedisEventStore({ url });
const handler = createStreamableHttpNodeHandler(server, {
  sessions: { store: sessionStore },
  eventStore,
  keepAliveInterval: 0,
});
const http = createHttpServer(handler);
http.listen(0, '127.0.0.1', () => {
  process.stdout.write(`http://127.0.0.1:${http.address().port}/mcp\n`);
});
process.on('SIGTERM', async () => {
  http.closeAllConnections();
  await handler.close();
  await Promise.all([sessionStore.close(), eventStore.close()]);
  process.exit(0);
});
