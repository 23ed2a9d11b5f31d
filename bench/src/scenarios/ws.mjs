/**
 * Scenario 4: WebSocket, 64 calls in flight, a fixed number of calls. The server runs in a child
 * pinned to CPU 1; this process (the client) runs on CPU 0.
 */
import { fileURLToPath } from 'node:url';
import {
  ageBothSides,
  check,
  kit,
  lanes,
  lanesWithCpu,
  METHOD,
  PARAMS,
  startServerChild,
} from '../common.mjs';
import { coalescingSender, perFrameSender } from '../ws-frames.mjs';

const SERVER_FILE = fileURLToPath(new URL('../children/ws-server.mjs', import.meta.url));

async function rawClient(url, coalesce) {
  const { WebSocket } = await import('ws');
  const ws = new WebSocket(url);
  await new Promise((resolve, reject) => {
    ws.once('open', resolve);
    ws.once('error', reject);
  });
  const send = coalesce ? coalescingSender(ws) : perFrameSender(ws);
  const pending = new Map();
  let nextId = 0;
  ws.on('message', (data) => {
    const m = JSON.parse(data.toString());
    const p = pending.get(m.id);
    if (p === undefined) return;
    pending.delete(m.id);
    if (m.error !== undefined) p.reject(new Error(m.error.message));
    else p.resolve(m.result);
  });
  const call = (method = METHOD, params = PARAMS) =>
    new Promise((resolve, reject) => {
      const id = ++nextId;
      pending.set(id, { resolve, reject });
      send(JSON.stringify({ jsonrpc: '2.0', id, method, params }));
    });
  return { call, close: () => ws.close() };
}

async function kitClient(url) {
  const { createClient } = await kit('@jsonrpc-kit/client', 'createClient');
  const { createWebSocketTransport } = await kit(
    '@jsonrpc-kit/transport-ws',
    'createWebSocketTransport',
  );
  const client = createClient(createWebSocketTransport({ url }), {});
  return {
    call: (method = METHOD, params = PARAMS) => client.request(method, params),
    close: () => (typeof client.close === 'function' ? client.close() : undefined),
  };
}

async function rpcWebsocketsClient(url) {
  const { Client } = await import('rpc-websockets');
  const client = new Client(url, { reconnect: false });
  await new Promise((resolve, reject) => {
    client.once('open', resolve);
    client.once('error', reject);
  });
  return {
    call: (method = METHOD, params = PARAMS) => client.call(method, params),
    close: () => client.close(),
  };
}

/** WebSocket clients by implementation: `(url) => Promise<{ call, close }>`. */
export const clients = {
  raw: (url) => rawClient(url, false),
  'raw-coalesced': (url) => rawClient(url, true),
  kit: kitClient,
  'rpc-websockets': rpcWebsocketsClient,
};

/**
 * Measures one implementation: warm-up calls, then `config.calls` calls, 64 in flight. `aged`: a
 * full GC on both sides between the two ({@link ageBothSides}).
 */
export async function run(impl, config, aged = false) {
  const make = clients[impl];
  // Fail fast (as "not built") before starting a server child.
  if (impl === 'kit') await kit('@jsonrpc-kit/transport-ws', 'createWebSocketTransport');
  const server = await startServerChild(SERVER_FILE, [impl], { cpu: 1 });
  let client;
  try {
    client = await make(`ws://127.0.0.1:${server.port}/`);
    check(await client.call());
    await lanes(client.call, 64, config.warmupCalls);
    if (aged) await ageBothSides(client.call);
    return await lanesWithCpu(client.call, 64, config.calls);
  } finally {
    try {
      await client?.close();
    } catch {}
    await server.stop();
  }
}
