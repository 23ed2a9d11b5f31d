// Micro-benchmark of server.handle() against a raw baseline and two peers, in process.
// Run after `npx tsc -b`: node packages/server/bench/handle.bench.mjs
import { createRequire } from 'node:module';
import { createServer } from '../dist/index.js';

const require = createRequire(new URL('../../../bench/package.json', import.meta.url));
const { JSONRPCServer } = await import(require.resolve('json-rpc-2.0'));
const jayson = require('jayson');

const single = '{"jsonrpc":"2.0","id":1,"method":"add","params":[1,2]}';
const batch =
  '[' +
  Array.from(
    { length: 100 },
    (_, i) => `{"jsonrpc":"2.0","id":${i},"method":"add","params":[${i},2]}`,
  ).join(',') +
  ']';

// raw: JSON.parse + Map lookup + handler + JSON.stringify of an envelope
const rawMethods = new Map([['add', ([a, b]) => a + b]]);
function rawOne(m) {
  const handler = rawMethods.get(m.method);
  return { jsonrpc: '2.0', id: m.id, result: handler(m.params) };
}
// Returns a resolved promise, as handle() does: the same contract, with no async-function overhead.
const raw = (text) => {
  const value = JSON.parse(text);
  return Promise.resolve(JSON.stringify(Array.isArray(value) ? value.map(rawOne) : rawOne(value)));
};

const kitServer = createServer();
kitServer.method('add', ([a, b]) => a + b);
const kit = (text) => kitServer.handle(text);

const j2 = new JSONRPCServer();
j2.addMethod('add', ([a, b]) => a + b);
const jsonRpc2 = async (text) => JSON.stringify(await j2.receive(JSON.parse(text)));

const jay = new jayson.Server({ add: (args, cb) => cb(null, args[0] + args[1]) });
const jaysonCall = (text) =>
  new Promise((resolve, reject) =>
    jay.call(JSON.parse(text), (err, res) => (err ? reject(err) : resolve(JSON.stringify(res)))),
  );

async function measure(fn, text, ms) {
  // warm up
  for (let i = 0; i < 2000; i++) await fn(text);
  let n = 0;
  const end = performance.now() + ms;
  const t0 = performance.now();
  while (performance.now() < end) {
    for (let i = 0; i < 500; i++) await fn(text);
    n += 500;
  }
  return n / ((performance.now() - t0) / 1000);
}

const ms = Number(process.env.BENCH_MS ?? 1500);
const candidates = { raw, kit, 'json-rpc-2.0': jsonRpc2, jayson: jaysonCall };
for (const [label, text] of [
  ['single', single],
  ['batch100', batch],
]) {
  const rates = {};
  // interleave rounds to even out JIT and GC noise
  for (let round = 0; round < 3; round++) {
    for (const [name, fn] of Object.entries(candidates)) {
      const rate = await measure(fn, text, ms / 3);
      rates[name] = Math.max(rates[name] ?? 0, rate);
    }
  }
  console.log(`\n${label}`);
  for (const [name, rate] of Object.entries(rates)) {
    console.log(
      `  ${name.padEnd(14)} ${Math.round(rate).toString().padStart(9)} ops/s  ${(rate / rates.raw).toFixed(2)}x raw`,
    );
  }
}
