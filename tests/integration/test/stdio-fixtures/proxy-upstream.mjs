// The upstream of the proxy tests: a @jsonrpc-kit server over this process's stdio
// (Content-Length framing) with a slow call that counts its cancellations, progress, a call back
// to its client, and an error with data.
import { JsonRpcError } from '@jsonrpc-kit/core';
import { createServer } from '@jsonrpc-kit/server';
import { createStdioTransport } from '@jsonrpc-kit/transport-stdio';

const server = createServer({ callContext: true });
let cancelled = 0;
server.method('add', ([a, b]) => a + b);
server.method('fail', () => {
  throw new JsonRpcError(-32042, 'Custom failure', { detail: [1, 2], note: null });
});
server.method(
  'slow',
  (_params, ctx) =>
    new Promise((_resolve, reject) => {
      ctx.signal.addEventListener('abort', () => {
        cancelled++;
        reject(ctx.signal.reason);
      });
    }),
);
server.method('cancelled', () => cancelled);
server.method('count', async (_params, ctx) => {
  for (let i = 1; i <= 3; i++) await ctx.progress?.({ step: i });
  return 'counted';
});
server.method('ask', async (params, ctx) => ctx.peer.request('client/confirm', params));
server.method('context', (_params, ctx) => ({
  meta: ctx.meta ?? null,
  secondsLeft: ctx.deadline === undefined ? null : Math.round((ctx.deadline - Date.now()) / 1000),
}));
server.notification('ping', (params, ctx) => ctx.peer.notify('pong', params));
const connection = server.connect(createStdioTransport({ framing: 'content-length' }));
connection.closed.then(() => process.exit(0));
