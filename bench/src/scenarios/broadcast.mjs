/**
 * Scenario 8: broadcast of one item to 1, 100 and 1,000 subscribed WebSocket connections. The
 * server runs in a child pinned to CPU 1; this process holds the subscribers (plain `ws`
 * sockets, the same for every implementation) on CPU 0. Measures items delivered per second
 * (every subscriber counted) and the server's CPU time per delivered item.
 */
import { fileURLToPath } from 'node:url';
import { kit, startServerChild } from '../common.mjs';

const SERVER_FILE = fileURLToPath(new URL('../children/broadcast-server.mjs', import.meta.url));

/** How each implementation's subscribers subscribe. */
const SUBSCRIBE = {
  raw: '{"jsonrpc":"2.0","id":1,"method":"eth_subscribe","params":["newHeads"]}',
  'raw-per-subscriber': '{"jsonrpc":"2.0","id":1,"method":"eth_subscribe","params":["newHeads"]}',
  kit: '{"jsonrpc":"2.0","id":1,"method":"eth_subscribe","params":["newHeads"]}',
  'rpc-websockets': '{"jsonrpc":"2.0","id":1,"method":"rpc.on","params":["newHeads"]}',
};

async function subscribers(url, impl, count) {
  const { WebSocket } = await import('ws');
  let received = 0;
  const sockets = [];
  for (let i = 0; i < count; i++) {
    const ws = new WebSocket(url);
    await new Promise((resolve, reject) => {
      ws.once('open', resolve);
      ws.once('error', reject);
    });
    await new Promise((resolve) => {
      ws.once('message', resolve); // the subscribe answer
      ws.send(SUBSCRIBE[impl]);
    });
    ws.on('message', () => received++);
    sockets.push(ws);
  }
  return {
    received: () => received,
    reset: () => {
      received = 0;
    },
    close: () => {
      for (const ws of sockets) ws.terminate();
    },
  };
}

async function get(port, path) {
  const response = await fetch(`http://127.0.0.1:${port}${path}`);
  return response.text();
}

async function waitFor(condition, timeoutMs) {
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error('items did not all arrive in time');
    await new Promise((resolve) => setTimeout(resolve, 1));
  }
}

/** Measures one implementation with `connections` subscribers. */
export async function run(impl, config, connections) {
  if (impl === 'kit') await kit('@jsonrpc-kit/server', 'createSubscriptions');
  const server = await startServerChild(SERVER_FILE, [impl], { cpu: 1 });
  let subs;
  try {
    subs = await subscribers(`ws://127.0.0.1:${server.port}/`, impl, connections);
    const items = Math.max(10, Math.ceil(config.deliveries / connections));
    const batch = Math.max(1, Math.floor(1000 / connections));
    const round = async (count) => {
      subs.reset();
      const started = performance.now();
      await get(server.port, `/publish?items=${count}&batch=${batch}`);
      await waitFor(() => subs.received() >= count * connections, 60_000);
      const seconds = (performance.now() - started) / 1000;
      const cpuUs = Number(await get(server.port, '/cpu'));
      return { seconds, cpuUs, delivered: count * connections };
    };
    await round(Math.ceil(items / 5)); // warm-up
    const { seconds, cpuUs, delivered } = await round(items);
    return {
      value: delivered / seconds,
      extra: { cpuUsPerItem: cpuUs / delivered, delivered },
    };
  } finally {
    subs?.close();
    await server.stop();
  }
}
