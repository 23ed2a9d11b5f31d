// Calls per second with N calls in flight over one WebSocket. The load comes from a raw `ws`
// client in a worker thread (so the server's thread does only the server's work). Servers:
//   raw     a bare `ws` server: JSON.parse, Map lookup, JSON.stringify, one send per frame
//   ours    createWebSocketServer + a minimal ConnectionHandler doing the same work with core
//   server  createWebSocketServer + @jsonrpc-kit/server (when it is built and resolvable)
// Run after `npx tsc -b`:  node packages/transport-ws/bench/ws.bench.mjs [seconds] [inFlight] [rounds]
import { Worker } from 'node:worker_threads';
import { parse, serializeError, serializeSuccess } from '@jsonrpc-kit/core';
import { WebSocketServer } from 'ws';
import { createWebSocketServer } from '../dist/index.js';

const seconds = Number(process.argv[2] ?? 3);
const inFlight = Number(process.argv[3] ?? 64);
const rounds = Number(process.argv[4] ?? 3);
const methods = new Map([['add', (p) => p[0] + p[1]]]);

async function rawServer() {
  const wss = new WebSocketServer({ port: 0, host: '127.0.0.1', perMessageDeflate: false });
  await new Promise((r) => wss.once('listening', r));
  wss.on('connection', (ws) => {
    ws.on('message', (data) => {
      const msg = JSON.parse(data.toString());
      const fn = methods.get(msg.method);
      ws.send(JSON.stringify({ jsonrpc: '2.0', id: msg.id, result: fn(msg.params) }));
    });
  });
  return { port: wss.address().port, close: () => new Promise((r) => wss.close(r)) };
}

function coreHandler() {
  return {
    connect(transport) {
      transport.start({
        onMessage(text) {
          const parsed = parse(text);
          if (parsed.kind !== 'request') return;
          const fn = methods.get(parsed.message.method);
          transport
            .send(
              fn === undefined
                ? serializeError(parsed.message.id, { code: -32601, message: 'Method not found' })
                : serializeSuccess(parsed.message.id, fn(parsed.message.params), parsed.rawId),
            )
            .catch(() => {});
        },
        onClose() {},
      });
      return {
        closed: new Promise(() => {}),
        close: () => transport.close(),
        notify() {},
        request() {},
      };
    },
  };
}

async function ours(handler) {
  const wss = createWebSocketServer({
    server: handler,
    port: 0,
    host: '127.0.0.1',
    heartbeat: false,
  });
  await wss.ready;
  return { port: wss.port, close: () => wss.close({ timeout: 100 }) };
}

async function kitServer() {
  try {
    const { createServer } = await import('@jsonrpc-kit/server');
    const server = createServer();
    server.method('add', (p) => p[0] + p[1]);
    return ours(server);
  } catch {
    return undefined;
  }
}

const driver = `
import { parentPort, workerData } from 'node:worker_threads';
import { WebSocket } from '${import.meta.resolve('ws')}';
const { port, inFlight, seconds } = workerData;
const ws = new WebSocket('ws://127.0.0.1:' + port, { perMessageDeflate: false });
await new Promise((r) => ws.once('open', r));
let id = 0, done = 0, running = true;
const send = () => ws.send('{"jsonrpc":"2.0","id":' + ++id + ',"method":"add","params":[' + id + ',2]}');
ws.on('message', () => { done++; if (running) send(); });
for (let i = 0; i < inFlight; i++) send();
await new Promise((r) => setTimeout(r, 500));
const start = done, t0 = performance.now();
await new Promise((r) => setTimeout(r, seconds * 1000));
const rate = ((done - start) * 1000) / (performance.now() - t0);
running = false;
ws.close();
parentPort.postMessage(rate);
`;

function drive(port) {
  return new Promise((resolve, reject) => {
    const worker = new Worker(new URL(`data:text/javascript,${encodeURIComponent(driver)}`), {
      workerData: { port, inFlight, seconds },
    });
    worker.once('message', (rate) => {
      resolve(rate);
      void worker.terminate();
    });
    worker.once('error', reject);
  });
}

const servers = [
  ['raw', rawServer],
  ['ours', () => ours(coreHandler())],
  ['server', kitServer],
];
const results = { raw: [], ours: [], server: [] };
for (let round = 0; round < rounds; round++) {
  for (const [name, make] of servers) {
    const s = await make();
    if (s === undefined) continue;
    results[name].push(await drive(s.port));
    await s.close();
  }
}
const median = (list) => [...list].sort((a, b) => a - b)[Math.floor(list.length / 2)];
const raw = median(results.raw);
console.log(
  `${inFlight} calls in flight, ${seconds} s per run, median of ${rounds} interleaved runs`,
);
console.log(`raw ws baseline                       ${raw.toFixed(0).padStart(7)} calls/s`);
const o = median(results.ours);
console.log(
  `createWebSocketServer + core handler  ${o.toFixed(0).padStart(7)} calls/s  ${(o / raw).toFixed(2)}x`,
);
if (results.server.length > 0) {
  const s = median(results.server);
  console.log(
    `createWebSocketServer + server        ${s.toFixed(0).padStart(7)} calls/s  ${(s / raw).toFixed(2)}x`,
  );
}
process.exit(0);
