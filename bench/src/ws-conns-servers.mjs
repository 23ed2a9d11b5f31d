/**
 * The WebSocket servers of the many-connections scenarios (`ws-idle`, `ws-light`) and of
 * `idle-heap.mjs`, each attached to a given HTTP server: a bare `ws` server with its defaults,
 * and the kit with its defaults (heartbeat on) except the connection caps, lifted so that one
 * load generator on 127.0.0.1 may open every socket.
 */
import { add, kit, METHOD } from './common.mjs';

/** A bare `ws` server with its defaults: one frame per answer. */
export async function rawServer(http) {
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

/** The kit with its defaults (heartbeat on), the connection caps lifted. */
export async function kitServer(http) {
  const { createServer } = await kit('@jsonrpc-kit/server', 'createServer');
  const { createWebSocketServer } = await kit('@jsonrpc-kit/transport-ws', 'createWebSocketServer');
  const server = createServer({});
  server.method(METHOD, add);
  createWebSocketServer(server, {
    httpServer: http,
    maxConnections: Number.POSITIVE_INFINITY,
    maxConnectionsPerAddress: Number.POSITIVE_INFINITY,
  });
}

/** The servers by implementation name. */
export const wsConnsServers = { raw: rawServer, kit: kitServer };
