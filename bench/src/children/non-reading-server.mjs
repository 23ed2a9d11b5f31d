/**
 * Server child of the non-reading-peer scenario: `node non-reading-server.mjs <transport>`.
 * Serves `echo` with the kit over stdio (its own stdin/stdout), TCP (`createStreamTransport` on
 * each accepted socket) or WebSocket, prints `port <n>` (network transports) and then
 * `rss <bytes>` every 100 ms on stderr.
 */
import { createServer as createNetServer } from 'node:net';
import { kit } from '../common.mjs';

const [transport] = process.argv.slice(2);

const { createServer } = await kit('@jsonrpc-kit/server', 'createServer');
const server = createServer({});
server.method('echo', (params) => params);

const report = (line) => process.stderr.write(`${line}\n`);
setInterval(() => report(`rss ${process.memoryUsage().rss}`), 100);

if (transport === 'stdio') {
  const { createStdioTransport } = await kit(
    '@jsonrpc-kit/transport-stdio',
    'createStdioTransport',
  );
  server.connect(createStdioTransport({ framing: 'newline' }));
  process.stdin.on('end', () => process.exit(0));
} else if (transport === 'tcp' || transport === 'tcp-no-pause') {
  const { createStreamTransport } = await kit(
    '@jsonrpc-kit/transport-stdio',
    'createStreamTransport',
  );
  // `tcp-no-pause` shows what the server holds without inbound backpressure.
  const options =
    transport === 'tcp'
      ? { framing: 'newline' }
      : { framing: 'newline', highWaterMark: Infinity, maxQueuedBytes: Infinity };
  const net = createNetServer((socket) =>
    server.connect(createStreamTransport(socket, socket, options)),
  );
  net.listen(0, '127.0.0.1', () => report(`port ${net.address().port}`));
} else if (transport === 'ws') {
  const { createWebSocketServer } = await kit('@jsonrpc-kit/transport-ws', 'createWebSocketServer');
  const wss = createWebSocketServer({ server, port: 0, host: '127.0.0.1' });
  await wss.ready;
  report(`port ${wss.port}`);
} else {
  throw new Error(`unknown transport ${transport}`);
}
