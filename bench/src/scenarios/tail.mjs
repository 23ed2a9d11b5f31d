/**
 * Scenario 12: tail latency. 64 calls in flight for a fixed number of calls, each call timed by
 * the client (this process, CPU 0); the server is a child on CPU 1. The value is the p99 in ms.
 * The client's own time is in every number, the same for every server.
 * - HTTP: an undici loop against each HTTP server child;
 * - WebSocket: each implementation's own client against its server child;
 * - mixed: over WebSocket, 1 call in 100 is `slow` (20 ms); the percentiles are those of the
 *   other calls, so they show whether a slow handler holds up the calls behind it.
 */
import { fileURLToPath } from 'node:url';
import {
  check,
  kit,
  percentile,
  REQUEST_TEXT,
  SLOW_METHOD,
  startServerChild,
  timedLanes,
} from '../common.mjs';
import { clients } from './ws.mjs';

const HTTP_FILE = fileURLToPath(new URL('../children/http-server.mjs', import.meta.url));
const WS_FILE = fileURLToPath(new URL('../children/ws-server.mjs', import.meta.url));

function result(sorted) {
  return {
    value: percentile(sorted, 99),
    extra: { p50: percentile(sorted, 50), p999: percentile(sorted, 99.9), calls: sorted.length },
  };
}

/** HTTP: p99 of an undici loop, 64 in flight over a pool of 64 keep-alive connections. */
export async function runHttp(impl, config) {
  if (impl === 'kit') await kit('@jsonrpc-kit/transport-http', 'createHttpHandler');
  const server = await startServerChild(HTTP_FILE, [impl], { cpu: 1 });
  const { Pool } = await import('undici');
  const pool = new Pool(`http://127.0.0.1:${server.port}`, { connections: 64 });
  try {
    const call = async () => {
      const { body } = await pool.request({
        path: '/',
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: REQUEST_TEXT,
      });
      return JSON.parse(await body.text()).result;
    };
    check(await call());
    await timedLanes(call, 64, config.warmupCalls);
    return result(await timedLanes(call, 64, config.calls));
  } finally {
    await pool.close();
    await server.stop();
  }
}

/** WebSocket: p99 with 64 in flight; with `mixed`, 1 call in 100 is slow and not counted. */
export async function runWs(impl, config, mixed) {
  if (impl === 'kit') await kit('@jsonrpc-kit/transport-ws', 'createWebSocketTransport');
  const server = await startServerChild(WS_FILE, [impl], { cpu: 1 });
  let client;
  try {
    client = await clients[impl](`ws://127.0.0.1:${server.port}/`);
    check(await client.call());
    const isSlow = (i) => mixed && i % 100 === 99;
    const call = (i) => (isSlow(i) ? client.call(SLOW_METHOD, []) : client.call());
    await timedLanes(call, 64, config.warmupCalls);
    return result(await timedLanes(call, 64, config.calls, (i) => !isSlow(i)));
  } finally {
    try {
      await client?.close();
    } catch {}
    await server.stop();
  }
}
