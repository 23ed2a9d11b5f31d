/**
 * WebSocket server child for the many-connections scenarios: `node ws-conns-server.mjs <impl>`.
 * Serves `add` on 127.0.0.1, port 0, prints `{ "port": n }`, and answers `GET /__stats` (memory
 * and CPU of this process) on the same port. The kit runs with its defaults (heartbeat on) except
 * the connection caps, lifted so that one load generator on 127.0.0.1 may open every socket.
 */
import { createServer as createHttpServer } from 'node:http';
import { add, kit, METHOD, reportReady, serverMain, serveStats } from '../common.mjs';

const impl = process.argv[2];

function listen(server) {
  return new Promise((resolve) =>
    server.listen(0, '127.0.0.1', () => resolve(server.address().port)),
  );
}

/** A bare `ws` server with its defaults: one frame per answer. */
async function rawServer(http) {
  const { WebSocketServer } = await import('ws');
  const wss = new WebSocketServer({ server: http });
  wss.on('connection', (ws) => {
    ws.on('message', (data) => {
      const m = JSON.parse(data.toString());
      const response =
        m.method === METHOD
          ? { jsonrpc: '2.0', id: m.id, result: add(m.params) }
          : { jsonrpc: '2.0', id: m.id, error: { code: -32601, message: 'Method not found' } };
      ws.send(JSON.stringify(response));
    });
  });
}

async function kitServer(http) {
  const { createServer } = await kit('@jsonrpc-kit/server', 'createServer');
  const { createWebSocketServer } = await kit('@jsonrpc-kit/transport-ws', 'createWebSocketServer');
  const server = createServer({});
  server.method(METHOD, add);
  createWebSocketServer({
    server,
    httpServer: http,
    maxConnections: Number.POSITIVE_INFINITY,
    maxConnectionsPerAddress: Number.POSITIVE_INFINITY,
  });
}

const factories = { raw: rawServer, kit: kitServer };

await serverMain(async () => {
  const http = createHttpServer();
  serveStats(http, (_req, res) => res.writeHead(404).end());
  await factories[impl](http);
  reportReady({ port: await listen(http) });
});
