// A @jsonrpc-kit server with subscriptions (generic dialect) over this process's stdio.
// Usage: node subscriptions-server.mjs [framing]
import { createServer, createSubscriptions } from '@jsonrpc-kit/server';
import { createStdioTransport } from '@jsonrpc-kit/transport-stdio';

const server = createServer();
const subscriptions = createSubscriptions(server);
subscriptions.subscription('count', async function* ({ to }) {
  for (let i = 1; i <= to; i++) yield i;
});
subscriptions.subscription('ticks', (_params, ctx) => {
  let n = 0;
  const timer = setInterval(() => ctx.emit(++n), 5);
  return () => clearInterval(timer);
});
server.method('live', () => subscriptions.count());
server.method('pid', () => process.pid);
// Calls that are never answered (until the process goes), and how many arrived.
let hangs = 0;
server.method('hang', () => {
  hangs++;
  return new Promise(() => undefined);
});
server.method('hangs', () => hangs);
server.connect(createStdioTransport({ framing: process.argv[2] ?? 'auto' }));
