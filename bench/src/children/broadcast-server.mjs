/**
 * Broadcast server child: `node broadcast-server.mjs <impl>`. Listens on 127.0.0.1, port 0, and
 * prints `{ "port": n }`. WebSocket subscribers subscribe in the implementation's own way; then
 * `GET /publish?items=K&batch=B` publishes K items, B per event-loop turn, to every subscriber,
 * and `GET /cpu` answers the CPU time (µs) this process used since that publish began.
 */
import { createServer as createHttpServer } from 'node:http';
import { kit, reportReady, serverMain } from '../common.mjs';

const impl = process.argv[2];

/** The item: a block header, about 300 bytes of JSON. */
export function item(n) {
  const hex = n.toString(16);
  return {
    number: `0x${hex}`,
    hash: `0x${hex.padStart(64, '0')}`,
    parentHash: `0x${(n - 1).toString(16).padStart(64, '0')}`,
    timestamp: `0x${(1_700_000_000 + n).toString(16)}`,
    gasUsed: '0x0',
    miner: `0x${'0'.repeat(40)}`,
  };
}

function listen(server) {
  return new Promise((resolve) =>
    server.listen(0, '127.0.0.1', () => resolve(server.address().port)),
  );
}

async function rawServer(http) {
  const { WebSocketServer } = await import('ws');
  const wss = new WebSocketServer({ server: http });
  const sockets = new Set();
  wss.on('connection', (ws) => {
    ws.on('message', (data) => {
      const m = JSON.parse(data.toString());
      sockets.add(ws);
      ws.send(JSON.stringify({ jsonrpc: '2.0', id: m.id, result: '0x1' }));
    });
    ws.on('close', () => sockets.delete(ws));
  });
  return (value) => {
    const text = JSON.stringify({
      jsonrpc: '2.0',
      method: 'eth_subscription',
      params: { subscription: '0x1', result: value },
    });
    for (const ws of sockets) ws.send(text);
  };
}

/**
 * The raw loop with one text per subscriber, as a subscription dialect whose items carry each
 * subscriber's own id needs (Ethereum's `eth_subscription`): the item is written once, then each
 * socket gets its own envelope around it.
 */
async function rawPerSubscriberServer(http) {
  const { WebSocketServer } = await import('ws');
  const wss = new WebSocketServer({ server: http });
  /** Each subscribed socket with its envelope head (its own subscription id). */
  const heads = new Map();
  let next = 0;
  wss.on('connection', (ws) => {
    ws.on('message', (data) => {
      const m = JSON.parse(data.toString());
      const id = `0x${(++next).toString(16).padStart(32, '0')}`;
      heads.set(
        ws,
        `{"jsonrpc":"2.0","method":"eth_subscription","params":{"subscription":"${id}","result":`,
      );
      ws.send(JSON.stringify({ jsonrpc: '2.0', id: m.id, result: id }));
    });
    ws.on('close', () => heads.delete(ws));
  });
  return (value) => {
    const tail = `${JSON.stringify(value)}}}`;
    for (const [ws, head] of heads) ws.send(head + tail);
  };
}

async function kitServer(http) {
  const { createServer, createSubscriptions } = await kit(
    '@jsonrpc-kit/server',
    'createServer',
    'createSubscriptions',
  );
  const { ethereumSubscriptions } = await import('@jsonrpc-kit/core');
  const { createWebSocketServer } = await kit('@jsonrpc-kit/transport-ws', 'createWebSocketServer');
  const server = createServer();
  // A queue deep enough that the run never drops an item: the row measures delivery.
  const subscriptions = createSubscriptions(server, {
    dialect: ethereumSubscriptions,
    maxQueue: 1_000_000,
    validateItems: false,
  });
  subscriptions.subscription('newHeads');
  createWebSocketServer(server, { httpServer: http });
  return (value) => subscriptions.publish('newHeads', value);
}

async function rpcWebsocketsServer(http) {
  const { Server } = await import('rpc-websockets');
  const server = new Server({ server: http });
  server.event('newHeads');
  return (value) => server.emit('newHeads', value);
}

const factories = {
  raw: rawServer,
  'raw-per-subscriber': rawPerSubscriberServer,
  kit: kitServer,
  'rpc-websockets': rpcWebsocketsServer,
};

await serverMain(async () => {
  let publish;
  let start;
  const http = createHttpServer((req, res) => {
    const url = new URL(req.url, 'http://127.0.0.1');
    if (url.pathname === '/cpu') {
      const used = process.cpuUsage(start);
      res.end(String(used.user + used.system));
      return;
    }
    const items = Number(url.searchParams.get('items'));
    const batch = Number(url.searchParams.get('batch'));
    start = process.cpuUsage();
    let n = 0;
    const turn = () => {
      for (let i = 0; i < batch && n < items; i++) publish(item(++n));
      if (n < items) setImmediate(turn);
    };
    turn();
    res.end('ok');
  });
  publish = await factories[impl](http);
  reportReady({ port: await listen(http) });
});
