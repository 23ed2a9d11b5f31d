/**
 * Scenarios 9 and 10: many WebSocket connections to one server child (pinned to CPU 1), opened by
 * this process (CPU 0) with plain `ws` clients, the same for every server.
 * - idle: the server's RSS and heap per open, silent connection (after a full GC, the young
 *   generation of a fixed size: see `MEMORY_NODE_ARGS`);
 * - light load: every connection makes one call per second; the server's CPU time per call.
 */
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import {
  check,
  kit,
  MEMORY_NODE_ARGS,
  METHOD,
  memoryGrowth,
  openMany,
  PARAMS,
  readStats,
  startServerChild,
} from '../common.mjs';

const SERVER_FILE = fileURLToPath(new URL('../children/ws-conns-server.mjs', import.meta.url));
const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * How many sockets this process may open: the soft open-files limit less a margin. Node cannot
 * raise its own limit; when it is below the wanted count the scenario uses fewer connections
 * and reports how many (raise it with `ulimit -n` before `pnpm bench`).
 */
export function socketBudget(wanted, limitsText = readLimits()) {
  const match = /^Max open files\s+(\d+|unlimited)/m.exec(limitsText ?? '');
  if (match === null || match[1] === 'unlimited') return wanted;
  return Math.max(1, Math.min(wanted, Number(match[1]) - 256));
}

function readLimits() {
  try {
    return readFileSync('/proc/self/limits', 'utf8');
  } catch {
    return undefined;
  }
}

async function start(impl, count, nodeArgs = ['--expose-gc']) {
  if (impl === 'kit') await kit('@jsonrpc-kit/transport-ws', 'createWebSocketServer');
  const server = await startServerChild(SERVER_FILE, [impl], {
    cpu: 1,
    nodeArgs,
    timeoutMs: 15_000,
  });
  const { WebSocket } = await import('ws');
  let answered = 0;
  const open = () =>
    new Promise((resolve, reject) => {
      const ws = new WebSocket(`ws://127.0.0.1:${server.port}/`);
      ws.once('open', () => resolve(ws));
      ws.once('error', reject);
    });
  const sockets = [];
  const close = async () => {
    for (const ws of sockets) ws.terminate();
    await server.stop();
  };
  try {
    // One checked call before anything is measured: a broken path cannot look cheap.
    const first = await open();
    sockets.push(first);
    const reply = new Promise((resolve) => first.once('message', (d) => resolve(JSON.parse(d))));
    first.send(JSON.stringify({ jsonrpc: '2.0', id: 0, method: METHOD, params: PARAMS }));
    check((await reply).result);
    first.on('message', () => answered++);
    const before = await readStats(server.port, true);
    for (const ws of await openMany(count - 1, open)) {
      ws.on('message', () => answered++);
      sockets.push(ws);
    }
    return { server, sockets, before, answered: () => answered, close };
  } catch (error) {
    await close();
    throw error;
  }
}

/** Idle connections: value is the server's RSS growth per connection in KiB; heap beside it. */
export async function runIdle(impl, config) {
  const count = socketBudget(config.connections);
  const run = await start(impl, count, MEMORY_NODE_ARGS);
  try {
    await sleep(config.settleMs);
    const after = await readStats(run.server.port, true);
    const { rssKiB, heapKiB } = memoryGrowth(run.before, after, count - 1);
    return { value: rssKiB, extra: { heapKiB, connections: count } };
  } finally {
    await run.close();
  }
}

/**
 * Light load: each connection calls once per second, spread evenly over 50 ticks a second.
 * Value: the server's CPU time per answered call in µs over `measureMs`.
 */
export async function runLight(impl, config) {
  const count = socketBudget(config.connections);
  const run = await start(impl, count);
  let id = 0;
  let tick = 0;
  const perTick = Math.ceil(count / 50);
  const timer = setInterval(() => {
    const from = (tick++ % 50) * perTick;
    for (let i = from; i < Math.min(from + perTick, count); i++) {
      run.sockets[i].send(
        JSON.stringify({ jsonrpc: '2.0', id: ++id, method: METHOD, params: PARAMS }),
      );
    }
  }, 20);
  try {
    await sleep(config.warmupMs);
    const start = await readStats(run.server.port);
    const answeredBefore = run.answered();
    await sleep(config.measureMs);
    const end = await readStats(run.server.port);
    const calls = run.answered() - answeredBefore;
    if (calls === 0) throw new Error('no call answered');
    const seconds = config.measureMs / 1000;
    return {
      value: (end.cpuMicros - start.cpuMicros) / calls,
      extra: { callsPerSecond: calls / seconds, connections: count },
    };
  } finally {
    clearInterval(timer);
    await run.close();
  }
}
