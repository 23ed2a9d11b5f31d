/**
 * WebSocket server child: `node ws-server.mjs <impl>`. Listens on 127.0.0.1, port 0, and prints
 * `{ "port": n }` on one line.
 */
import { createServer as createHttpServer } from 'node:http';
import {
  add,
  CPU_METHOD,
  cpuNow,
  GC_METHOD,
  gcNow,
  kit,
  METHOD,
  reportReady,
  SLOW_METHOD,
  serverMain,
  slow,
} from '../common.mjs';
import { coalescingSender, perFrameSender } from '../ws-frames.mjs';

const impl = process.argv[2];

function listen(server) {
  return new Promise((resolve) =>
    server.listen(0, '127.0.0.1', () => resolve(server.address().port)),
  );
}

async function rawServer(coalesce) {
  const { WebSocketServer } = await import('ws');
  const methods = new Map([
    [METHOD, add],
    [SLOW_METHOD, slow],
    [CPU_METHOD, cpuNow],
    [GC_METHOD, gcNow],
  ]);
  const http = createHttpServer();
  const wss = new WebSocketServer({ server: http });
  wss.on('connection', (ws) => {
    const send = coalesce ? coalescingSender(ws) : perFrameSender(ws);
    ws.on('message', (data) => {
      const m = JSON.parse(data.toString());
      const handler = methods.get(m.method);
      if (handler === undefined) {
        const error = { code: -32601, message: 'Method not found' };
        send(JSON.stringify({ jsonrpc: '2.0', id: m.id, error }));
        return;
      }
      const result = handler(m.params);
      if (result instanceof Promise) {
        result.then((value) => send(JSON.stringify({ jsonrpc: '2.0', id: m.id, result: value })));
      } else send(JSON.stringify({ jsonrpc: '2.0', id: m.id, result }));
    });
  });
  return listen(http);
}

async function kitServer() {
  const { createServer } = await kit('@jsonrpc-kit/server', 'createServer');
  const { createWebSocketServer } = await kit('@jsonrpc-kit/transport-ws', 'createWebSocketServer');
  const server = createServer({});
  server.method(METHOD, add);
  server.method(SLOW_METHOD, slow);
  server.method(CPU_METHOD, cpuNow);
  server.method(GC_METHOD, gcNow);
  const http = createHttpServer();
  const port = await listen(http);
  const wss = createWebSocketServer(server, { httpServer: http });
  if (wss && typeof wss.then === 'function') await wss;
  return port;
}

async function rpcWebsocketsServer() {
  const { Server } = await import('rpc-websockets');
  const server = new Server({ port: 0, host: '127.0.0.1' });
  server.register(METHOD, (params) => add(params));
  server.register(SLOW_METHOD, () => slow());
  server.register(CPU_METHOD, () => cpuNow());
  server.register(GC_METHOD, () => gcNow());
  await new Promise((resolve) => server.on('listening', resolve));
  return server.wss.address().port;
}

const factories = {
  raw: () => rawServer(false),
  'raw-coalesced': () => rawServer(true),
  kit: kitServer,
  'rpc-websockets': rpcWebsocketsServer,
};

await serverMain(async () => {
  reportReady({ port: await factories[impl]() });
});
